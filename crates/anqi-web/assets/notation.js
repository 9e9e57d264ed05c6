// How the page says a game in words: cells by the board's coordinates, plies as a player
// reads them ("b2 flips 俥", "b2×c2 炮"), and results in plain words ("Red wins: every black
// piece captured, move 63").

import { pieceLabel } from "./board.js";

// Each cell's name. A board drawn as a grid (rectangles, the cross, `(coords ...)`) names its
// cells as chess does: a file letter from the left, a rank from the bottom ("a1"); a board
// drawn as a circle has no files or ranks, and names a cell by its number.
export function cellNames(topology) {
  if (!topology.coords) return [...Array(topology.cells).keys()].map(String);
  const rows = Math.max(...topology.coords.map(([r]) => r)) + 1;
  return topology.coords.map(([r, c]) => `${fileLetters(c)}${rows - r}`);
}

// a..z, then aa, ab... for boards wider than 26 files.
function fileLetters(c) {
  const a = 97;
  return c < 26 ? String.fromCharCode(a + c) : fileLetters(Math.floor(c / 26) - 1) + String.fromCharCode(a + (c % 26));
}

// A ply in words: the action with cells named, what it revealed, captured or drew.
export function plyText(ply, names, chinese) {
  const piece = (l) => pieceLabel(l, chinese);
  const cell = (n) => names[Number(n)] ?? n;
  let m;
  if ((m = ply.action.match(/^\(rev (\d+)\)$/))) return `${cell(m[1])} flips${ply.revealed ? ` ${piece(ply.revealed)}` : ""}`;
  if ((m = ply.action.match(/^\(mov (\d+) (\d+)\)$/))) {
    return ply.captured ? `${cell(m[1])}×${cell(m[2])} ${piece(ply.captured)}` : `${cell(m[1])}–${cell(m[2])}`;
  }
  if ((m = ply.action.match(/^\(put (\S+) (\d+)\)$/))) return `${piece(m[1])} to ${cell(m[2])}`;
  if (ply.action === "(bag)") return `draws${ply.drawn ? ` ${piece(ply.drawn)}` : ""} from the bag`;
  return ply.action;
}

// What to call player `id` (1-based) in a sentence: their colour once known ("Red"), with
// their name when they have both; `colours` are the position's, `players` the setup's.
export function playerWords(id, players, colours) {
  const p = players.find((x) => x.id === id);
  const colour = colours && colours[id - 1];
  const name = p ? p.name : `player ${id}`;
  return colour ? `${capital(colour)} (${name})` : name;
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// Why a game ended, in words, about the loser `who` (their words, or null).
const REASONS = {
  "capture-all": (who, other) => other ? `every ${other} piece captured` : "every piece of the other side captured",
  "no-moves": (who) => `${who || "the player to move"} has no legal move`,
  resign: (who) => `${who || "a player"} resigned`,
  time: (who) => `${who || "a player"} ran out of time`,
  illegal: (who) => `${who || "a player"} broke the rules`,
  disconnect: (who) => `${who || "a player"} left the game`,
  crash: (who) => `${who || "a player"}'s program crashed`,
  "no-connect": (who) => `${who || "a player"} never connected`,
  "no-progress": () => "no capture, flip or draw for too long",
  repetition: () => "the same position came too often",
  cleared: () => "one colour is gone",
  "ply-cap": () => "the move limit was reached",
  adjudicated: () => "ruled by the endgame tables",
};

// Whether every player of a game's setup plays on one side (single-player and cooperative
// games): a result is then a goal reached or missed, not a win or a draw.
export function oneSide(setup) {
  return setup.players.every((p) => p.side === setup.players[0].side);
}

// A finished game's result in plain words from its line of the game list (`GET /api/games`:
// names, `win`, `reason`, `loser`, `colours`, `ply`), as a game's page says it.
export function listedResultWords(g) {
  const players = g.players.map((name, i) => ({ id: i + 1, name }));
  return resultWords({ win: g.win, reason: g.reason, loser: g.loser }, players, g.colours || null, g.ply);
}

// A game's result in plain words, from its `end` event's `result`: "Red (alice) wins: every
// black piece captured, move 63"; "Draw: ..."; "Aborted: no result.". `players` are the
// setup's, `colours` the final position's, `plies` how many were played; `oneSide` when every
// player plays on one side (single-player, cooperative: a goal reached or missed).
export function resultWords(r, players, colours, plies, oneSide = players.length === 1) {
  if (!r.win) return r.reason === "aborted" ? "Aborted: no result." : `No result (${r.reason}).`;
  const m = r.win.match(/\(win (\d+) (\d+)\)/);
  const [p, t] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  const loser = r.loser ? playerWords(r.loser, players, colours) : null;
  const loserColour = r.loser && colours ? colours[r.loser - 1] : null;
  const winnerColour = p && colours ? colours[p - 1] : null;
  const other = loserColour || (winnerColour ? colours.find((c) => c && c !== winnerColour) : null);
  const why = (REASONS[r.reason] || (() => r.reason))(loser, other);
  const ruled = r.adjudication ? ` (${r.adjudication.by}: ${r.adjudication.verdict})` : "";
  const when = `move ${plies}`;
  const single = oneSide;
  if (p === 0 && t === 0) return single ? `Goal missed: ${why}, ${when}.` : `Draw: ${why}${ruled}, ${when}.`;
  if (single) return `Goal reached: ${why}, ${when}.`;
  const winner = p ? `${playerWords(p, players, colours)} wins` : `Team ${t} wins`;
  return `${winner}: ${why}${ruled}, ${when}.`;
}
