// Building the page's elements: h("tag", { attributes, onevent: handler }, ...children).

// An HTML element. An attribute whose name begins with "on" is an event handler; an attribute
// that is undefined, null or false is left out (so `hidden: false` shows the element).
// Children are nodes or text.
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  }
  for (const c of children.flat()) e.append(c instanceof Node ? c : String(c));
  return e;
}

// Makes `parent` show `children` in place of what it holds, keeping every node already there
// whose place, tag and attributes are the same (its text, and its children likewise, brought
// up to date): a poll that brings the same rows, or a row whose only change is a count in its
// text, keeps the elements on the page, so a link or button being clicked, or holding the
// keyboard's focus, keeps it. A kept element keeps its handlers, so an element whose handler
// does something other than its place's must say so in an attribute (an id, a data-
// attribute): two buttons that differ only in their label and handler must not stand for each
// other. Returns whether anything changed.
export function replaceChanged(parent, ...children) {
  return morph(parent, h("div", {}, ...children));
}

// Whether `a` may stand for `b`: text for text, or the same tag with the same attributes.
function sameShell(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType === Node.TEXT_NODE) return true;
  if (a.nodeName !== b.nodeName || a.attributes.length !== b.attributes.length) return false;
  return [...b.attributes].every((x) => a.getAttribute(x.name) === x.value);
}

// Makes `into`'s children those of `from`, place by place, keeping those of `into` that may
// stand for them (see replaceChanged).
function morph(into, from) {
  const old = [...into.childNodes];
  let changed = false;
  const next = [...from.childNodes].map((n, i) => {
    const o = old[i];
    if (!o || !sameShell(o, n)) { changed = true; return n; }
    if (n.nodeType === Node.TEXT_NODE) {
      if (o.data !== n.data) { o.data = n.data; changed = true; }
    } else if (morph(o, n)) changed = true;
    return o;
  });
  // Only the places that changed are touched: the nodes kept stay attached.
  next.forEach((n, i) => { if (i >= old.length) into.append(n); else if (n !== old[i]) into.replaceChild(n, old[i]); });
  for (const o of old.slice(next.length)) { o.remove(); changed = true; }
  return changed;
}
