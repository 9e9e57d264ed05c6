// One game's page (#/game/ID): its board at any ply, live over the game's feed (GET
// /api/games/{id}/live), with the players and their clocks, the pieces each side has taken,
// the facts of the position, the mobility and evaluation curves, the moves in words and, once
// over, the result in words, the deal and the exchange. Stepped through by the buttons or the
// keys (←, →, Home, End). On a person's seat (seat.js) it carries the seat's controls
// (seat-panel.js).
//
// When the server stops, the page says so, stops its clocks, and tries again every few
// seconds; when the server is back, the game (kept in its records under the same number)
// comes back too.

import { gameJsonUrl, gameRefusal, listGames, movesUrl, openGameFeed } from "./api.js";
import { actionCells, drawBoard, drawCurve, isRed, layout, pieceLabel } from "./board.js";
import { h, replaceChanged } from "./dom.js";
import { drawEval } from "./eval.js";
import { exchangePanel } from "./exchange.js";
import { clockText } from "./format.js";
import { cellNames, oneSide, playerWords, plyText, resultWords } from "./notation.js";
import { chinese, main } from "./page.js";
import { seatControls } from "./seat-panel.js";
import { play, plySound } from "./sound.js";

// A position's legal actions, all kinds together.
const mobility = (c) => c.moves + c.jumps + c.reveals + (c.bags || 0) + (c.puts || 0);

// How long to wait before connecting again after the server went away, in ms.
const RETRY_MS = 2000;

// `seat`, on a person's seat (seat.js): its state from the server, and `send` for clicks.
export function gameView(id, seat = null) {
  const state = {
    setup: null, lay: null, names: [], plies: [], faults: [], end: null, withheld: null,
    at: 0, follow: true, showDeal: false, live: false, lost: false,
  };
  const seatBox = h("div", { class: "seat", id: "seat", hidden: !seat });
  const controlsOfSeat = seat ? seatControls(seat, seatBox, redraw) : null;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const curve = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  curve.classList.add("curve");
  curve.setAttribute("role", "img");
  curve.setAttribute("aria-label", "each player's legal actions at every ply");
  const evalSvg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  evalSvg.classList.add("curve", "eval");
  evalSvg.setAttribute("role", "img");
  evalSvg.setAttribute("aria-label", "the engines' evaluation, from player 1's side");
  const evalBox = h("div", { id: "eval", hidden: true }, h("h2", {}, "Evaluation"), evalSvg);
  const players = h("div", { class: "players" });
  const tray = h("div", { class: "tray", id: "tray" });
  const facts = h("div", { class: "facts" });
  const result = h("div", { class: "result", id: "result", "aria-live": "polite" });
  // A named region, not a live one: it is drawn anew at every step, and a screen reader
  // would read it all each time.
  const moves = h("div", { class: "moves", id: "moves", tabindex: "0", role: "region", "aria-label": "the moves" });
  const pool = h("div", { class: "pool" });
  const exchange = exchangePanel(id);
  const status = h("p", { class: "note", id: "status", "aria-live": "polite" }, "Connecting…");
  const plyLabel = h("span", { id: "ply-label" });
  const dealBox = h("input", { type: "checkbox", id: "show-deal", disabled: true });
  const movesLink = h("a", { href: movesUrl(id), id: "moves-link", hidden: true, download: `game-${id}.txt` }, "moves");
  const go = (n) => { state.at = Math.max(0, Math.min(state.plies.length, n)); state.follow = state.at === state.plies.length; redraw(); };
  const controls = h("div", { class: "controls" },
    h("button", { id: "first", title: "first (Home)", "aria-label": "first ply (Home)", onclick: () => go(0) }, "|◀"),
    h("button", { id: "back", title: "back (←)", "aria-label": "back one ply (←)", onclick: () => go(state.at - 1) }, "◀"),
    h("button", { id: "forward", title: "forward (→)", "aria-label": "forward one ply (→)", onclick: () => go(state.at + 1) }, "▶"),
    h("button", { id: "last", title: "last (End)", "aria-label": "last ply (End)", onclick: () => go(state.plies.length) }, "▶|"),
    plyLabel,
    h("label", {}, dealBox, " show the deal"),
    h("a", { href: gameJsonUrl(id), download: `game-${id}.json` }, "JSON"),
    movesLink);
  dealBox.addEventListener("change", () => { state.showDeal = dealBox.checked; redraw(); });
  main.replaceChildren(
    h("h1", {}, `Game #${id}`, h("span", { class: "note", id: "variant" })),
    h("div", { class: "game" },
      h("div", { class: "board-wrap" }, seatBox, svg, controls, status),
      h("div", { class: "side" }, players, result, tray, facts, pool,
        h("h2", {}, "Moves"), moves, h("h2", {}, "Mobility"), curve, evalBox, exchange.element)));

  const onKey = (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.closest?.("svg.board")) return;
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
    const all = positions();
    const pos = all[state.at];
    const ply = state.at > 0 ? state.plies[state.at - 1] : null;
    const deal = state.showDeal && state.end ? state.end.deal : null;
    const pick = controlsOfSeat ? controlsOfSeat.update(pos, state) : null;
    drawBoard(svg, s.topology, state.lay, pos.board, {
      chinese: chinese(), bagGame: s.start === "bag", deal, marks: ply ? actionCells(ply.action) : [],
      names: state.names, pick: pick && pick.draw, onCell: pick ? pick.click : null,
    });
    svg.dataset.ply = state.at;
    svg.dataset.board = pos.board;
    plyLabel.textContent = `ply ${state.at} of ${state.plies.length}${state.end ? "" : state.live ? " (live)" : state.lost ? " (connection lost)" : ""}`;
    drawPlayers(pos);
    drawTray();
    drawFacts(pos, ply);
    // The curves are coloured by each player's colour once known (red, black), by seat before.
    const last = all[all.length - 1];
    drawCurve(curve, all, state.at, s.players.map((p, i) => markClass(last.colours[i], i).replace("mark-", "mark-stroke-")));
    evalBox.hidden = !drawEval(evalSvg, state.plies, s.players.length, state.at);
    result.textContent = state.end ? resultWords(state.end.result, s.players, last.colours, state.plies.length, oneSide(s)) : "";
    dealBox.disabled = !state.end;
    movesLink.hidden = !state.end;
    // Games read from records (`anqi view`, or kept from before a restart) have no exchange:
    // the list says which have one (`exchange`), asked once the game is over.
    exchange.update(s.players, Boolean(state.end) && state.exchangeKept === true);
    drawPlies();
  }

  // Each player: their mark, name, team and colour, and their clock (running for the player
  // to move while the game is live and shown at its end; stopped when the server is lost).
  function drawPlayers(pos) {
    players.replaceChildren(...state.setup.players.map((p, i) => {
      const colour = pos.colours[i];
      const left = pos.clocks_ms ? pos.clocks_ms[i] : null;
      const clock = left === null || left === undefined ? `used ${clockText(pos.used_ms[i])}` : clockText(left);
      const moving = pos.to_move === p.id && !state.end;
      const running = moving && state.live && state.at === state.plies.length && left !== null && left !== undefined && pos.at_unix_ms;
      return h("div", { class: "player" + (moving ? " to-move" : ""), "data-player": p.id },
        h("span", {}, h("b", { class: `mark ${markClass(colour, i)}`, "aria-hidden": "true" }, "● "), `${p.id}. ${p.name}`,
          p.team ? ` (team ${p.team})` : "", colour ? ` · ${colour}` : "", moving ? h("span", { class: "sr-only" }, " (to move)") : ""),
        h("span", { class: "clock" + (running ? " running" : ""), "data-left": running ? left : "", "data-at": running ? pos.at_unix_ms : "" }, clock));
    }));
  }

  // The pieces taken so far (up to the ply shown): red pieces taken, then black ones.
  function drawTray() {
    const taken = state.plies.slice(0, state.at).flatMap((p) => p.captured ? [p.captured] : []);
    const row = (red, label) => {
      const mine = taken.filter((l) => isRed(l) === red).sort((a, b) => ORDER.indexOf(a.toUpperCase()) - ORDER.indexOf(b.toUpperCase()));
      return h("div", { class: "tray-row", "data-side": red ? "red" : "black" }, h("span", { class: "note" }, label),
        ...mine.map((l) => h("span", { class: `taken ${red ? "red" : "black"}`, title: l }, pieceLabel(l, chinese()))),
        mine.length ? "" : h("span", { class: "note" }, " none"));
    };
    tray.replaceChildren(row(true, "red taken: "), row(false, "black taken: "));
  }

  // The turn, the no-progress count, the bag, the mobility; and the pieces not yet seen.
  function drawFacts(pos, ply) {
    const s = state.setup;
    facts.replaceChildren(
      h("span", {}, `turn ${pos.turn}`),
      h("span", { id: "quiet" }, `no-progress ${pos.quiet}`),
      s.start === "bag" ? h("span", {}, `bag ${pos.bag}${pos.hand ? `, in hand ${pieceLabel(pos.hand, chinese())}` : ""}`) : "",
      h("span", {}, `mobility ${pos.mobility.map(mobility).join(" / ")}`),
      ply && ply.captured ? h("span", {}, `captured ${pieceLabel(ply.captured, chinese())}`) : "");
    const letters = s.piece_letters;
    const unseen = [...letters].flatMap((l, i) => pos.unseen[i] ? [h("span", { class: isRed(l) ? "red" : "black" }, `${pieceLabel(l, chinese())}×${pos.unseen[i]} `)] : []);
    pool.replaceChildren("unseen: ", ...(unseen.length ? unseen : ["none"]));
  }

  // The plies in words (the one shown marked, a click shows another) and the referee's error
  // replies.
  function drawPlies() {
    const s = state.setup;
    const all = positions();
    // The rows already drawn are kept (a click on one is not lost to the next ply): the mark
    // of the ply shown is taken off before and put back after, so that no row differs by it.
    const marked = moves.querySelector(".current");
    if (marked) marked.classList.remove("current");
    replaceChanged(moves, ...state.plies.map((p, i) => {
      const who = playerWords(p.player, s.players, all[i + 1].colours);
      return h("div", { onclick: () => go(i + 1), "data-action": p.action },
        h("span", { class: "ply-no" }, `${p.ply}.`), " ", h("span", { class: "who" }, who), " ", plyText(p, state.names, chinese()),
        p.comment ? h("span", { class: "comment", title: p.comment }, ` { ${p.comment} }`) : "");
    }), ...state.faults.map((f) => h("div", { class: "fault" }, `ply ${f.ply}: ${playerWords(f.player, s.players, null)}: ${f.code}: ${f.text}`)));
    // Only the list scrolls to the ply shown. scrollIntoView would scroll the window too: on a
    // phone, where the list is below the board, every ply of a live game pulled the board off
    // the screen. (The list is positioned, so a ply's offsetTop is within it.)
    const cur = state.at > 0 ? moves.children[state.at - 1] : null;
    if (cur) {
      cur.classList.add("current");
      if (cur.offsetTop < moves.scrollTop) moves.scrollTop = cur.offsetTop;
      const below = cur.offsetTop + cur.offsetHeight - moves.clientHeight;
      if (below > moves.scrollTop) moves.scrollTop = below;
    }
  }

  // Clocks run between events; a seat's own clock warns once a turn when it runs low.
  let warned = null;
  const tick = setInterval(() => {
    for (const c of players.querySelectorAll(".clock.running")) {
      const left = Number(c.dataset.left) - (Date.now() - Number(c.dataset.at));
      c.textContent = clockText(left);
      const me = seat && seat.state && String(seat.state.player) === c.parentElement.dataset.player;
      if (me && left < 10000 && warned !== c.dataset.at) { warned = c.dataset.at; play("low-time"); }
    }
  }, 250);

  // Whether the server keeps the game's exchange (the list's `exchange`): asked once over. A
  // game that ends while watched may be listed a moment before its exchange is, so then a
  // "no" is asked again a few times; a game over before the page opened is asked once.
  let exchangeAsks = 0, exchangeTries = 1, exchangeTimer = null;
  const askExchange = async () => {
    if (stopped || state.exchangeKept || exchangeAsks >= exchangeTries) return;
    exchangeAsks += 1;
    try {
      const page = await listGames({ game: id });
      if (stopped) return;
      state.exchangeKept = Boolean(page.games[0] && page.games[0].exchange);
      if (state.setup) redraw();
      if (!state.exchangeKept) exchangeTimer = setTimeout(askExchange, 1000);
    } catch (e) { /* the panel stays hidden */ }
  };

  // The feed: opened, and opened again after the server went away, until the game is over.
  let ws = null, caughtUp = false, retry = null, stopped = false, everOpened = false;
  const connect = () => {
    ws = openGameFeed(id);
    const fresh = { plies: [], faults: [], end: null };
    let replay = state.lost; // a reconnection reads the game again from its start
    ws.onopen = () => { everOpened = true; };
    ws.onmessage = (m) => {
      const e = JSON.parse(m.data);
      const into = replay ? fresh : state;
      if (e.type === "setup") {
        state.setup = e;
        state.lay = layout(e.topology);
        state.names = cellNames(e.topology);
        document.getElementById("variant").textContent = ` · ${e.variant} · ${e.players.map((p) => p.name).join(" – ")}`;
      } else if (e.type === "ply") {
        into.plies.push(e);
        if (!replay && state.follow) state.at = state.plies.length;
        if (caughtUp && !replay) play(plySound(e));
      } else if (e.type === "fault") {
        into.faults.push(e);
      } else if (e.type === "end") {
        into.end = e;
        if (caughtUp && !replay) play("end");
        if (caughtUp) exchangeTries = 5;
        askExchange();
      } else if (e.type === "withheld") {
        // A tournament keeps this game's end (or all of it) off the pages while its deal is
        // still in play in another game: say so, and why.
        state.withheld = e.text;
        status.textContent = e.text;
        document.body.dataset.withheld = "1";
      } else if (e.type === "caught_up") {
        if (replay) {
          Object.assign(state, fresh);
          if (state.follow || state.at > state.plies.length) state.at = state.plies.length;
          replay = false;
        }
        caughtUp = true;
        state.lost = false;
        delete document.body.dataset.lost;
        state.live = !state.end;
        status.textContent = state.end ? "Finished." : "Live.";
        document.body.dataset.caughtUp = "1";
        if (state.end) document.body.dataset.finished = "1";
        // The time to the first board, for BENCHMARKS.md (tests/integration/page_timing.rs).
        if (!performance.getEntriesByName("anqi-first-board").length) performance.mark("anqi-first-board");
      }
      if (!replay && (caughtUp || e.type === "end")) redraw();
      if (!replay && e.type === "end") {
        state.live = false;
        status.textContent = "Finished.";
        document.body.dataset.finished = "1";
      }
    };
    ws.onclose = async (c) => {
      if (stopped || state.withheld) return;
      if (state.end) { if (!caughtUp) redraw(); return; }
      // A feed refused before it ever opened (an unknown game, a withheld one, too many
      // watching): the browser does not say why, the API does.
      if (!state.setup && !everOpened) {
        status.textContent = c.reason ? `Disconnected: ${c.reason}` : "No such game.";
        try {
          const refusal = await gameRefusal(id);
          if (refusal !== null) status.textContent = refusal;
        } catch (e) { /* the words above stay */ }
        return;
      }
      // The server went away (or dropped this page): the clocks stop here, the page says
      // so, and tries again.
      const why = c.reason && !state.lost ? `Disconnected: ${c.reason}.` : "Lost the connection to the server: it may have stopped.";
      status.textContent = `${why} The clocks are stopped here; trying again every few seconds…`;
      state.lost = true;
      state.live = false;
      caughtUp = false;
      document.body.dataset.lost = "1";
      redraw();
      try {
        const refusal = await gameRefusal(id);
        if (refusal !== null) {
          // The server is back but does not know this game.
          status.textContent = `The server is back, but: ${refusal}`;
          return;
        }
      } catch (e) { /* still away */ }
      if (!stopped) retry = setTimeout(connect, RETRY_MS);
    };
  };
  connect();
  return {
    stop() {
      stopped = true; clearTimeout(retry); clearTimeout(exchangeTimer); if (ws) ws.close(); clearInterval(tick); document.removeEventListener("keydown", onKey);
      for (const k of ["caughtUp", "finished", "withheld", "lost"]) delete document.body.dataset[k];
    },
    redraw,
  };
}

// The order pieces are listed in, strongest first.
const ORDER = "KGBRNCP";

// A player's mark: their colour once known, else their seat's.
function markClass(colour, i) {
  return colour === "red" ? "mark-red" : colour === "black" ? "mark-black" : `mark-${i % 4}`;
}
