// The evaluation graph: the scores the players' engines gave in their comments on their plies
// (`score 35`, `score cp -12.5`, `value 1/2` from the perfect player), drawn from player 1's
// side. An engine's score is its own side's (negamax), so a score of player 2 in a two-player
// game is turned over; a game of more players draws each player's own scores.

const SVGNS = "http://www.w3.org/2000/svg";

// The score a comment gives, or null: a number after `score` (centipawns when `cp` says so, or
// pawns), or `value N/D` as a fraction of a win (scaled to ±1000).
export function commentScore(comment) {
  if (!comment) return null;
  let m = comment.match(/\bscore\s+(?:cp\s+)?(-?\d+(?:\.\d+)?)/);
  if (m) return Number(m[1]);
  m = comment.match(/\bvalue\s+(-?\d+)\/(\d+)/);
  if (m && Number(m[2]) > 0) return (1000 * Number(m[1])) / Number(m[2]);
  return null;
}

// [ply, score from player 1's side (or the mover's, with more players), player] for each
// ply that has a score.
export function scores(plies, players) {
  return plies.flatMap((p) => {
    const s = commentScore(p.comment);
    if (s === null) return [];
    return [[p.ply, players === 2 && p.player === 2 ? -s : s, p.player]];
  });
}

// Draws the graph into `svg` up to ply `upto`; returns whether there was anything to draw.
export function drawEval(svg, plies, players, upto) {
  svg.replaceChildren();
  const points = scores(plies, players);
  if (points.length < 2) return false;
  const w = 600, h = 120, pad = 4;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  // Scores are clamped to what a position is usually worth, so one mate score does not
  // flatten the rest.
  const max = Math.min(1000, Math.max(50, ...points.map(([, s]) => Math.abs(s))));
  const n = Math.max(2, plies.length);
  const x = (ply) => pad + ((w - 2 * pad) * (ply - 1)) / (n - 1);
  const y = (s) => h / 2 - ((h / 2 - pad) * Math.max(-max, Math.min(max, s))) / max;
  const line = (attrs) => {
    const e = document.createElementNS(SVGNS, "line");
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.appendChild(e);
  };
  line({ x1: 0, y1: h / 2, x2: w, y2: h / 2, class: "zero" });
  const shown = points.filter(([ply]) => ply <= upto);
  const byPlayer = players === 2 ? [shown] : [...new Set(shown.map(([, , p]) => p))].map((p) => shown.filter((s) => s[2] === p));
  byPlayer.forEach((pts, i) => {
    const e = document.createElementNS(SVGNS, "polyline");
    e.setAttribute("points", pts.map(([ply, s]) => `${x(ply)},${y(s)}`).join(" "));
    e.setAttribute("class", `eval mark-stroke-${players === 2 ? 0 : (pts[0][2] - 1) % 4}`);
    svg.appendChild(e);
  });
  if (upto > 0) line({ x1: x(upto), y1: 0, x2: x(upto), y2: h, class: "now" });
  svg.dataset.points = shown.length;
  return true;
}
