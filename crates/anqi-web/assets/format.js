// How the page writes times (results and plies in words: notation.js).

// A clock in milliseconds as minutes and seconds ("4:05"); "–" for none.
export function clockText(t) {
  if (t === null || t === undefined) return "–";
  const s = Math.max(0, Math.floor(t / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// A duration in seconds as minutes and seconds; "–" for none.
export function secondsText(s) {
  return s === null || s === undefined ? "–" : clockText(s * 1000);
}
