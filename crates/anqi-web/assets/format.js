// How the page writes times and results.

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

// A game's result, from its `end` event's `result`: "1 by capture (player 2)".
export function resultText(r) {
  return `${r.win || "aborted"} by ${r.reason}${r.adjudication ? ` (${r.adjudication.by}: ${r.adjudication.verdict})` : ""}${r.loser ? ` (player ${r.loser})` : ""}`;
}
