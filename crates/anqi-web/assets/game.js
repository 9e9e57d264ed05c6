// One game's page (#/game/ID): its board at any ply, live over the game's feed (GET
// /api/games/{id}/live), with the players and their clocks, the facts of the position, the
// mobility curves, the plies and, once over, the deal and the exchange. Stepped through by
// the buttons or the keys (←, →, Home, End). On a person's seat (seat.js) it carries the
// seat's controls (seat-panel.js).

import { gameJsonUrl, gameRefusal, movesUrl, openGameFeed } from "./api.js";
import { actionCells, drawBoard, drawCurve, isRed, layout, pieceLabel } from "./board.js";
import { h } from "./dom.js";
import { exchangePanel } from "./exchange.js";
import { clockText, resultText } from "./format.js";
import { chinese, main } from "./page.js";
import { seatControls } from "./seat-panel.js";

// Each player's colour in the mobility curve (SVG attributes); on the page, the same colours
// are the classes mark-0 to mark-3 of style.css (the page's policy allows no inline style).
const COLOURS = ["#b3261e", "#1d1d1d", "#2c8a4b", "#2f7ad8"];

// A position's legal actions, all kinds together.
const mobility = (c) => c.moves + c.jumps + c.reveals + (c.bags || 0) + (c.puts || 0);

// `seat`, on a person's seat (seat.js): its state from the server, and `send` for clicks.
export function gameView(id, seat = null) {
  const state = {
    setup: null, lay: null, plies: [], faults: [], end: null, withheld: null,
    at: 0, follow: true, showDeal: false, live: false,
  };
  const seatBox = h("div", { class: "seat", id: "seat", hidden: !seat });
  const controlsOfSeat = seat ? seatControls(seat, seatBox, redraw) : null;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const curve = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  curve.classList.add("curve");
  const players = h("div", { class: "players" });
  const facts = h("div", { class: "facts" });
  const result = h("div", { class: "result" });
  const moves = h("div", { class: "moves" });
  const pool = h("div", { class: "pool" });
  const exchange = exchangePanel(id);
  const status = h("p", { class: "note" }, "Connecting…");
  const plyLabel = h("span", { id: "ply-label" });
  const dealBox = h("input", { type: "checkbox", id: "show-deal", disabled: true });
  const go = (n) => { state.at = Math.max(0, Math.min(state.plies.length, n)); state.follow = state.at === state.plies.length; redraw(); };
  const controls = h("div", { class: "controls" },
    h("button", { id: "first", title: "first (Home)", onclick: () => go(0) }, "|◀"),
    h("button", { id: "back", title: "back (←)", onclick: () => go(state.at - 1) }, "◀"),
    h("button", { id: "forward", title: "forward (→)", onclick: () => go(state.at + 1) }, "▶"),
    h("button", { id: "last", title: "last (End)", onclick: () => go(state.plies.length) }, "▶|"),
    plyLabel,
    h("label", {}, dealBox, " show the deal"),
    h("a", { href: gameJsonUrl(id), download: `game-${id}.json` }, "JSON"),
    h("a", { href: movesUrl(id), id: "moves-link", hidden: true, download: `game-${id}.txt` }, "moves"));
  dealBox.addEventListener("change", () => { state.showDeal = dealBox.checked; redraw(); });
  main.replaceChildren(
    h("h1", {}, `Game #${id}`, h("span", { class: "note", id: "variant" })),
    h("div", { class: "game" },
      h("div", { class: "board-wrap" }, seatBox, svg, controls, status),
      h("div", { class: "side" }, players, result, facts, pool, h("h3", {}, "Mobility"), curve, h("h3", {}, "Plies"), moves, exchange.element)));

  const onKey = (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") go(state.at - 1);
    else if (e.key === "ArrowRight") go(state.at + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(state.plies.length);
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", onKey);

  const positions = () => [state.setup.position, ...state.plies.map((p) => p.position)];

  function redraw() {
    if (!state.setup) return;
    const s = state.setup;
    const pos = positions()[state.at];
    const ply = state.at > 0 ? state.plies[state.at - 1] : null;
    const deal = state.showDeal && state.end ? state.end.deal : null;
    const pick = controlsOfSeat ? controlsOfSeat.update(pos, state) : null;
    drawBoard(svg, s.topology, state.lay, pos.board, {
      chinese: chinese(), bagGame: s.start === "bag", deal, marks: ply ? actionCells(ply.action) : [],
      pick: pick && pick.draw, onCell: pick ? pick.click : null,
    });
    svg.dataset.ply = state.at;
    svg.dataset.board = pos.board;
    plyLabel.textContent = `ply ${state.at} of ${state.plies.length}${state.end ? "" : state.live ? " (live)" : ""}`;
    drawPlayers(pos);
    drawFacts(pos, ply);
    drawCurve(curve, positions(), state.at, COLOURS);
    result.textContent = state.end ? resultText(state.end.result) : "";
    dealBox.disabled = !state.end;
    document.getElementById("moves-link").hidden = !state.end;
    exchange.update(s.players, Boolean(state.end));
    drawPlies();
  }

  // Each player: their mark, name, team and colour, and their clock (running for the player
  // to move while the game is live and shown at its end).
  function drawPlayers(pos) {
    players.replaceChildren(...state.setup.players.map((p, i) => {
      const colour = pos.colours[i];
      const left = pos.clocks_ms ? pos.clocks_ms[i] : null;
      const clock = left === null || left === undefined ? `used ${clockText(pos.used_ms[i])}` : clockText(left);
      const moving = pos.to_move === p.id;
      const running = moving && state.live && !state.end && state.at === state.plies.length && left !== null && left !== undefined && pos.at_unix_ms;
      return h("div", { class: "player" + (moving ? " to-move" : ""), "data-player": p.id },
        h("span", {}, h("b", { class: `mark mark-${i % 4}` }, "■ "), `${p.id}. ${p.name}`,
          p.team ? ` (team ${p.team})` : "", colour ? ` · ${colour}` : ""),
        h("span", { class: "clock", "data-left": running ? left : "", "data-at": running ? pos.at_unix_ms : "" }, clock));
    }));
  }

  // The turn, the no-progress count, the bag, the mobility, what the ply captured; and the
  // pieces not yet seen.
  function drawFacts(pos, ply) {
    const s = state.setup;
    facts.replaceChildren(
      h("span", {}, `turn ${pos.turn}`),
      h("span", { id: "quiet" }, `no-progress ${pos.quiet}`),
      s.start === "bag" ? h("span", {}, `bag ${pos.bag}${pos.hand ? `, in hand ${pieceLabel(pos.hand, chinese())}` : ""}`) : "",
      h("span", {}, `mobility ${pos.mobility.map(mobility).join(" / ")}`),
      ply && ply.captured ? h("span", {}, `captured ${pieceLabel(ply.captured, chinese())}`) : "");
    const letters = s.piece_letters;
    pool.replaceChildren("unseen: ", ...[...letters].flatMap((l, i) => pos.unseen[i] ? [h("span", { class: isRed(l) ? "red" : "black" }, `${pieceLabel(l, chinese())}×${pos.unseen[i]} `)] : []));
  }

  // The plies (the one shown marked, a click shows another) and the referee's error replies.
  function drawPlies() {
    moves.replaceChildren(...state.plies.map((p, i) => {
      const extra = [p.revealed && `→${p.revealed}`, p.captured && `×${p.captured}`, p.drawn && `drew ${p.drawn}`].filter(Boolean).join(" ");
      return h("div", { class: i + 1 === state.at ? "current" : "", onclick: () => go(i + 1) }, `${p.ply}. P${p.player} ${p.action} ${extra}`,
        p.comment ? h("span", { class: "comment", title: p.comment }, ` { ${p.comment} }`) : "");
    }), ...state.faults.map((f) => h("div", { class: "fault" }, `ply ${f.ply}: player ${f.player}: ${f.code}: ${f.text}`)));
    // Only the list scrolls to the ply shown. scrollIntoView would scroll the window too: on a
    // phone, where the list is below the board, every ply of a live game pulled the board off
    // the screen. (The list is positioned, so a ply's offsetTop is within it.)
    const cur = moves.querySelector(".current");
    if (cur) {
      if (cur.offsetTop < moves.scrollTop) moves.scrollTop = cur.offsetTop;
      const below = cur.offsetTop + cur.offsetHeight - moves.clientHeight;
      if (below > moves.scrollTop) moves.scrollTop = below;
    }
  }

  // Clocks run between events.
  const tick = setInterval(() => {
    for (const c of players.querySelectorAll(".clock[data-at]")) {
      if (!c.dataset.at) continue;
      c.textContent = clockText(Number(c.dataset.left) - (Date.now() - Number(c.dataset.at)));
    }
  }, 250);

  const ws = openGameFeed(id);
  let caughtUp = false;
  ws.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.type === "setup") {
      state.setup = e;
      state.lay = layout(e.topology);
      document.getElementById("variant").textContent = ` · ${e.variant} · ${e.players.map((p) => p.name).join(" – ")}`;
    } else if (e.type === "ply") {
      state.plies.push(e);
      if (state.follow) state.at = state.plies.length;
    } else if (e.type === "fault") {
      state.faults.push(e);
    } else if (e.type === "end") {
      state.end = e;
    } else if (e.type === "withheld") {
      // A tournament keeps this game's end (or all of it) off the pages while its deal is
      // still in play in another game: say so, and why.
      state.withheld = e.text;
      status.textContent = e.text;
      document.body.dataset.withheld = "1";
    } else if (e.type === "caught_up") {
      caughtUp = true;
      state.live = !state.end;
      status.textContent = state.end ? "Finished." : "Live.";
      document.body.dataset.caughtUp = "1";
    }
    if (caughtUp || e.type === "end") redraw();
    if (e.type === "end") {
      state.live = false;
      status.textContent = "Finished.";
      document.body.dataset.finished = "1";
    }
  };
  ws.onclose = async (c) => {
    if (state.withheld) return;
    if (!state.end) status.textContent = c.reason ? `Disconnected: ${c.reason}` : (state.setup ? "Disconnected." : "No such game.");
    if (!caughtUp) redraw();
    // A feed refused before it opened (an unknown game, a withheld one, too many watching):
    // the browser does not say why, the API does.
    if (!state.setup) {
      try {
        const refusal = await gameRefusal(id);
        if (refusal !== null) status.textContent = refusal;
      } catch (e) { /* the words above stay */ }
    }
  };
  return {
    stop() { ws.close(); clearInterval(tick); document.removeEventListener("keydown", onKey); delete document.body.dataset.caughtUp; delete document.body.dataset.finished; delete document.body.dataset.withheld; },
    redraw,
  };
}
