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
