// The anqi page: the lobby (#/), one game (#/game/ID), live over the server's WebSocket feed,
// a tournament's standings (#/standings), a ladder's leaderboard (#/ladder) and players
// (#/players/NAME), and a person's seat (#/play/TOKEN) where the game is
// played by clicking (protocol/WEB.md). Plain JavaScript modules, no build step: this one
// routes the page's address to its view; each view is a module of its own.
//
// A view draws itself into the page's main area and returns { stop(), redraw() }: stop when
// the address changes, redraw when the 漢字 toggle does.

import { hasEvent, hasLadder } from "./api.js";
import { gameView } from "./game.js";
import { ladderView, playerView } from "./ladder.js";
import { lobby } from "./lobby.js";
import { onChineseChange } from "./page.js";
import { seatView } from "./seat.js";
import { standings } from "./standings.js";

let view = null; // what is on screen

onChineseChange(() => {
  if (view) view.redraw();
});
window.addEventListener("hashchange", route);
route();

function route() {
  if (view) view.stop();
  const game = location.hash.match(/^#\/game\/(\d+)/);
  const seat = location.hash.match(/^#\/play\/([0-9a-f]+)/);
  const player = location.hash.match(/^#\/players\/([^/]+)$/);
  view = game ? gameView(Number(game[1])) : seat ? seatView(seat[1])
    : player ? playerView(decoded(player[1]))
    : location.hash === "#/standings" ? standings() : location.hash === "#/ladder" ? ladderView() : lobby();
}

// An address's part as text (a malformed %-escape is kept as it is).
function decoded(part) {
  try { return decodeURIComponent(part); } catch { return part; }
}

// A tournament's pages have standings (from its start): show their link.
hasEvent().then((yes) => {
  if (yes) document.getElementById("standings-link").hidden = false;
}).catch(() => {});
// A ladder's pages have its leaderboard: show its link.
hasLadder().then((yes) => {
  if (yes) document.getElementById("ladder-link").hidden = false;
}).catch(() => {});
