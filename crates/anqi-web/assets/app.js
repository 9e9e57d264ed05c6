// The anqi page: the lobby (#/) and one game (#/game/ID), live over the server's WebSocket
// feed (protocol/WEB.md). Plain JavaScript modules, no build step.

import { layout, drawBoard, drawCurve, actionCells, pieceLabel, isRed } from "./board.js";

const app = document.getElementById("app");
const chineseBox = document.getElementById("chinese");
chineseBox.checked = localStorage.getItem("anqi.chinese") === "1";
let view = null; // what is on screen: { stop(), redraw() }

chineseBox.addEventListener("change", () => {
  localStorage.setItem("anqi.chinese", chineseBox.checked ? "1" : "0");
  if (view) view.redraw();
});
window.addEventListener("hashchange", route);
route();

function route() {
  if (view) view.stop();
  const m = location.hash.match(/^#\/game\/(\d+)/);
  view = m ? gameView(Number(m[1])) : location.hash === "#/standings" ? standings() : lobby();
}

// A tournament's pages have standings (from its start): show their link.
fetch("/api/event").then((r) => {
  if (r.ok) document.getElementById("standings-link").hidden = false;
}).catch(() => {});

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  }
  for (const c of children.flat()) e.append(c instanceof Node ? c : String(c));
  return e;
}

function ms(t) {
  if (t === null || t === undefined) return "–";
  const s = Math.max(0, Math.floor(t / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// ---- The lobby -------------------------------------------------------------------------

function lobby() {
  const player = h("input", { placeholder: "player", id: "filter-player" });
  const variant = h("input", { placeholder: "variant", id: "filter-variant" });
  const body = h("tbody");
  const status = h("p", { class: "note" });
  app.replaceChildren(
    h("h1", {}, "Games"),
    h("div", { class: "filters" }, player, variant),
    h("table", { class: "games" },
      h("thead", {}, h("tr", {}, ...["game", "variant", "players", "ply", "result"].map((t) => h("th", {}, t)))),
      body),
    status);
  let games = [];
  const show = () => {
    const p = player.value.trim(), v = variant.value.trim();
    const rows = games.filter((g) => (!p || g.players.some((n) => n.includes(p))) && (!v || g.variant.includes(v)));
    body.replaceChildren(...rows.map((g) => h("tr", { class: g.state, "data-game": g.game },
      h("td", {}, h("a", { href: `#/game/${g.game}` }, `#${g.game}`)),
      h("td", {}, g.variant),
      h("td", {}, g.players.join(" – ")),
      h("td", {}, g.ply),
      h("td", {}, g.state === "running" ? `playing${g.observers ? ` · ${g.observers} watching` : ""}` : `${g.win || "aborted"} ${g.reason}`))));
    status.textContent = games.length ? `${rows.length} of ${games.length} games` : "No game yet: games appear here as soon as they start.";
  };
  player.addEventListener("input", show);
  variant.addEventListener("input", show);
  let stopped = false;
  const poll = async () => {
    try {
      const r = await fetch("/api/games");
      games = (await r.json()).games;
      show();
    } catch (e) {
      status.textContent = `Cannot reach the server: ${e}`;
    }
    if (!stopped) timer = setTimeout(poll, 2000);
  };
  let timer = setTimeout(poll, 0);
  return { stop() { stopped = true; clearTimeout(timer); }, redraw() {} };
}

// ---- A tournament's standings ---------------------------------------------------------

function standings() {
  const progress = h("progress", { id: "event-progress", max: 1, value: 0 });
  const summary = h("p", { id: "event-summary" });
  const sprt = h("div", { id: "event-sprt" });
  const table = h("pre", { id: "event-standings", class: "standings" });
  app.replaceChildren(h("h1", {}, "Standings"), progress, summary, sprt, table);
  let stopped = false, timer = null;
  const secs = (s) => s === null || s === undefined ? "–" : ms(s * 1000);
  const poll = async () => {
    try {
      const r = await fetch("/api/event");
      if (r.ok) {
        const e = await r.json();
        progress.max = e.total;
        progress.value = e.finished;
        summary.textContent = `${e.finished} of ${e.total} games · ${secs(e.elapsed_s)} elapsed · ${e.finished < e.total ? `about ${secs(e.eta_s)} left` : "done"}`;
        const s = e.standings.sprt;
        if (s) {
          const at = Math.max(0, Math.min(1, (s.llr - s.lower) / (s.upper - s.lower)));
          sprt.replaceChildren(
            h("span", {}, `SPRT ${s.first} vs ${s.second} [${s.elo0}, ${s.elo1}]: LLR ${s.llr.toFixed(2)} in (${s.lower.toFixed(2)}, ${s.upper.toFixed(2)}), ${s.verdict} `),
            h("meter", { min: 0, max: 1, value: at }));
        }
        table.textContent = e.text;
        document.body.dataset.finishedGames = e.finished;
      } else {
        summary.textContent = "No standings yet: they come once a game has finished.";
      }
    } catch (err) {
      summary.textContent = `Cannot reach the server: ${err}`;
    }
    if (!stopped) timer = setTimeout(poll, 2000);
  };
  poll();
  return { stop() { stopped = true; clearTimeout(timer); delete document.body.dataset.finishedGames; }, redraw() {} };
}

// ---- One game --------------------------------------------------------------------------

function gameView(id) {
  const state = {
    setup: null, plies: [], faults: [], end: null, at: 0, follow: true, showDeal: false, live: false,
  };
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const curve = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  curve.classList.add("curve");
  const players = h("div", { class: "players" });
  const facts = h("div", { class: "facts" });
  const result = h("div", { class: "result" });
  const moves = h("div", { class: "moves" });
  const pool = h("div", { class: "pool" });
  const exchangeWho = h("select", { id: "exchange-player" }, h("option", { value: "" }, "every player"));
  const exchangeLines = h("div", { class: "moves", id: "exchange-lines" });
  const exchange = h("details", { id: "exchange", hidden: true },
    h("summary", {}, "The exchange between the referee and the players"), exchangeWho, exchangeLines);
  let exchangeData = null;
  const showExchange = () => {
    if (!exchangeData) return;
    const who = exchangeWho.value;
    exchangeLines.replaceChildren(...exchangeData.lines.filter((l) => !who || String(l.player) === who).map((l) =>
      h("div", { class: l.by === "referee" ? "sent" : "got" },
        `ply ${l.ply} ${l.by === "referee" ? `→ P${l.player}` : `P${l.player} →`} ${l.text}`)),
      exchangeData.dropped ? h("div", {}, `(${exchangeData.dropped} more lines not kept)`) : "");
  };
  exchangeWho.addEventListener("change", showExchange);
  exchange.addEventListener("toggle", async () => {
    if (!exchange.open || exchangeData) return;
    const r = await fetch(`/api/games/${id}/exchange`);
    const body = await r.json();
    if (!r.ok) { exchangeLines.textContent = body.error; return; }
    exchangeData = body;
    showExchange();
  });
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
    h("a", { href: `/api/games/${id}`, download: `game-${id}.json` }, "JSON"),
    h("a", { href: `/api/games/${id}/moves.txt`, id: "moves-link", hidden: true, download: `game-${id}.txt` }, "moves"));
  dealBox.addEventListener("change", () => { state.showDeal = dealBox.checked; redraw(); });
  app.replaceChildren(
    h("h1", {}, `Game #${id}`, h("span", { class: "note", id: "variant" })),
    h("div", { class: "game" },
      h("div", { class: "board-wrap" }, svg, controls, status),
      h("div", { class: "side" }, players, result, facts, pool, h("h3", {}, "Mobility"), curve, h("h3", {}, "Plies"), moves, exchange)));

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
    drawBoard(svg, s.topology, state.lay, pos.board, {
      chinese: chineseBox.checked, bagGame: s.start === "bag", deal, marks: ply ? actionCells(ply.action) : [],
    });
    svg.dataset.ply = state.at;
    svg.dataset.board = pos.board;
    plyLabel.textContent = `ply ${state.at} of ${state.plies.length}${state.end ? "" : state.live ? " (live)" : ""}`;
    const colours = ["#b3261e", "#1d1d1d", "#2c8a4b", "#2f7ad8"];
    players.replaceChildren(...s.players.map((p, i) => {
      const colour = pos.colours[i];
      const left = pos.clocks_ms ? pos.clocks_ms[i] : null;
      let clock = left === null || left === undefined ? `used ${ms(pos.used_ms[i])}` : ms(left);
      const moving = pos.to_move === p.id;
      const running = moving && state.live && !state.end && state.at === state.plies.length && left !== null && left !== undefined && pos.at_unix_ms;
      const e = h("div", { class: "player" + (moving ? " to-move" : ""), "data-player": p.id },
        h("span", {}, h("b", { style: `color:${colours[i % 4]}` }, "■ "), `${p.id}. ${p.name}`,
          p.team ? ` (team ${p.team})` : "", colour ? ` · ${colour}` : ""),
        h("span", { class: "clock", "data-left": running ? left : "", "data-at": running ? pos.at_unix_ms : "" }, clock));
      return e;
    }));
    const total = (c) => c.moves + c.jumps + c.reveals + (c.bags || 0) + (c.puts || 0);
    facts.replaceChildren(
      h("span", {}, `turn ${pos.turn}`),
      h("span", { id: "quiet" }, `no-progress ${pos.quiet}`),
      s.start === "bag" ? h("span", {}, `bag ${pos.bag}${pos.hand ? `, in hand ${pieceLabel(pos.hand, chineseBox.checked)}` : ""}`) : "",
      h("span", {}, `mobility ${pos.mobility.map(total).join(" / ")}`),
      ply && ply.captured ? h("span", {}, `captured ${pieceLabel(ply.captured, chineseBox.checked)}`) : "");
    const letters = s.piece_letters;
    pool.replaceChildren("unseen: ", ...[...letters].flatMap((l, i) => pos.unseen[i] ? [h("span", { class: isRed(l) ? "red" : "black" }, `${pieceLabel(l, chineseBox.checked)}×${pos.unseen[i]} `)] : []));
    drawCurve(curve, positions(), state.at, colours);
    result.textContent = state.end ? `${state.end.result.win || "aborted"} by ${state.end.result.reason}${state.end.result.loser ? ` (player ${state.end.result.loser})` : ""}` : "";
    dealBox.disabled = !state.end;
    document.getElementById("moves-link").hidden = !state.end;
    exchange.hidden = !state.end;
    if (s.players.length + 1 !== exchangeWho.options.length) {
      exchangeWho.append(...s.players.map((p) => h("option", { value: p.id }, `player ${p.id}, ${p.name}`)));
    }
    moves.replaceChildren(...state.plies.map((p, i) => {
      const extra = [p.revealed && `→${p.revealed}`, p.captured && `×${p.captured}`, p.drawn && `drew ${p.drawn}`].filter(Boolean).join(" ");
      return h("div", { class: i + 1 === state.at ? "current" : "", onclick: () => go(i + 1) }, `${p.ply}. P${p.player} ${p.action} ${extra}`);
    }), ...state.faults.map((f) => h("div", { class: "fault" }, `ply ${f.ply}: player ${f.player}: ${f.code}: ${f.text}`)));
    const cur = moves.querySelector(".current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }

  // Clocks run between events.
  const tick = setInterval(() => {
    for (const c of players.querySelectorAll(".clock[data-at]")) {
      if (!c.dataset.at) continue;
      c.textContent = ms(Number(c.dataset.left) - (Date.now() - Number(c.dataset.at)));
    }
  }, 250);

  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/api/games/${id}/live`);
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
  ws.onclose = (c) => {
    if (!state.end) status.textContent = c.reason ? `Disconnected: ${c.reason}` : (state.setup ? "Disconnected." : "No such game.");
    if (!caughtUp) redraw();
  };
  return {
    stop() { ws.close(); clearInterval(tick); document.removeEventListener("keydown", onKey); delete document.body.dataset.caughtUp; delete document.body.dataset.finished; },
    redraw,
  };
}
