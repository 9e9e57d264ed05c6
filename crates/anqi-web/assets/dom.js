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

// Puts `children` in `parent` in place of what it holds, unless they would show the same (the
// same HTML): a poll that brings the same rows keeps the elements on the page, so a link being
// clicked, or holding the keyboard's focus, keeps it. Their handlers must then do what the
// kept ones do. Returns whether anything was replaced.
export function replaceChanged(parent, ...children) {
  const next = h("div", {}, ...children);
  if (next.innerHTML === parent.innerHTML) return false;
  parent.replaceChildren(...next.childNodes);
  return true;
}
