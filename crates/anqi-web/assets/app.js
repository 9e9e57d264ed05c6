// The anqi page: the lobby (#/), one game (#/game/ID), live over the server's WebSocket feed,
// a tournament's standings (#/standings), and a person's seat (#/play/TOKEN) where the game is
// played by clicking (protocol/WEB.md). Plain JavaScript modules, no build step.

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
  const play = location.hash.match(/^#\/play\/([0-9a-f]+)/);
  view = m ? gameView(Number(m[1])) : play ? playView(play[1]) : location.hash === "#/standings" ? standings() : lobby();
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
  const play = h("div", { class: "play", id: "play", hidden: true });
  app.replaceChildren(
    play,
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
      h("td", { title: g.withheld || "" }, g.state === "running" ? `playing${g.observers ? ` · ${g.observers} watching` : ""}${g.withheld ? " · withheld" : ""}`
        : g.withheld ? "withheld: its deal is still in play" : `${g.win || "aborted"} ${g.reason}`))));
    status.textContent = games.length ? `${rows.length} of ${games.length} games` : "No game yet: games appear here as soon as they start.";
  };
  player.addEventListener("input", show);
  variant.addEventListener("input", show);
  let stopped = false;
  const seats = playPanel(play);
  const poll = async () => {
    try {
      const r = await fetch("/api/games");
      games = (await r.json()).games;
      show();
      seats.update(await (await fetch("/api/seats")).json());
    } catch (e) {
      status.textContent = `Cannot reach the server: ${e}`;
    }
    if (!stopped) timer = setTimeout(poll, 2000);
  };
  let timer = setTimeout(poll, 0);
  return { stop() { stopped = true; clearTimeout(timer); }, redraw() {} };
}

// ---- Sitting down to play (a server with [http] humans = true) --------------------------

function playPanel(box) {
  const name = h("input", { id: "play-name", placeholder: "your name", size: 14, value: localStorage.getItem("anqi.name") || "guest" });
  const against = h("select", { id: "play-against" });
  const seat = h("select", { id: "play-seat" }, h("option", { value: 0 }, "any seat"));
  const seed = h("input", { id: "play-seed", placeholder: "your seed (optional)", size: 20 });
  const waitingList = h("ul", { id: "waiting" });
  const message = h("span", { class: "error", id: "play-error" });
  let built = false;
  const sit = async (who) => {
    message.textContent = "";
    localStorage.setItem("anqi.name", name.value.trim());
    // The person's contribution to the deal: typed, or made up here.
    const mine = seed.value.trim() || [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const r = await fetch("/api/seats", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: name.value.trim(), against: who, seat: Number(seat.value), seed: mine }),
    });
    const body = await r.json();
    if (!r.ok) { message.textContent = body.error; return; }
    location.hash = `#/play/${body.token}`;
  };
  return {
    update(info) {
      if (!info.humans) { box.hidden = true; return; }
      box.hidden = false;
      if (!built) {
        built = true;
        against.replaceChildren(...info.bots.map((b) => h("option", { value: b }, `anqi-bot ${b}`)), h("option", { value: "waiting" }, "whoever comes to play"));
        seat.append(...[...Array(info.players).keys()].map((i) => h("option", { value: i + 1 }, `player ${i + 1}${i === 0 ? " (moves first)" : ""}`)));
        box.replaceChildren(
          h("h2", {}, `Play ${info.variant}`),
          h("form", { onsubmit: (e) => { e.preventDefault(); sit(against.value); } },
            name, "against", against, seat, h("button", { type: "submit", id: "play-start" }, "Play"), seed),
          h("div", {}, waitingList), message);
      }
      waitingList.replaceChildren(...info.waiting.map((w) => h("li", {},
        `${w.name} waits for a game (${Math.max(0, Math.round((Date.now() - w.since_unix_ms) / 1000))} s) `,
        h("button", { class: "take-seat", onclick: () => sit("waiting") }, "take the seat"))));
    },
  };
}

// ---- A person's seat: the game, played by clicking --------------------------------------

function playView(token) {
  const seat = { state: null, send: () => {}, game: null, view: null, refused: "", closed: "" };
  const note = h("p", { class: "note", id: "seat-note" }, "Connecting to your seat…");
  app.replaceChildren(h("h1", {}, "Your seat"), note);
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  let ws = null, stopped = false, retry = null;
  const ended = () => seat.state && (seat.state.state === "over" || seat.state.state === "gone");
  // The seat outlives its page's connection: reconnect (the token is in the page's address,
  // after the #, which is never sent to a server) until the seat is done with. The token goes
  // as the socket's first message, not in its address, which proxies log.
  const connect = () => {
    ws = new WebSocket(`${proto}//${location.host}/api/seats/live`);
    seat.send = (msg) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg)); };
    ws.onopen = () => { ws.send(JSON.stringify({ seat: token })); seat.closed = ""; };
    ws.onmessage = (m) => {
      const e = JSON.parse(m.data);
      if (e.type === "refused") {
        seat.refused = e.text;
      } else if (e.type === "seat") {
        seat.state = e;
        seat.refused = "";
        if (e.state === "waiting") {
          note.textContent = `Waiting for ${e.against === "waiting" ? "players to come" : "the game to start"}… (keep this page open)`;
        } else if (e.game !== null && !seat.view) {
          seat.view = gameView(e.game, seat);
        }
      }
      if (seat.view) seat.view.redraw();
      else if (e.state === "gone") note.textContent = `This seat was given up: ${e.why}`;
    };
    ws.onclose = (c) => {
      if (stopped) return;
      if (!seat.state && (c.code === 1008 || c.code === 1006)) {
        note.textContent = c.reason ? `No such seat: ${c.reason}` : "No such seat (or no longer kept).";
        return;
      }
      if (!ended()) {
        seat.closed = "Reconnecting to your seat…";
        retry = setTimeout(connect, 1000);
      }
      if (seat.view) seat.view.redraw();
    };
  };
  connect();
  return {
    stop() { stopped = true; clearTimeout(retry); if (ws) ws.close(); if (seat.view) seat.view.stop(); },
    redraw() { if (seat.view) seat.view.redraw(); },
  };
}

// What a person's click does: the legal actions of their prompt, by cell.
function clickPlan(actions) {
  const plan = { rev: new Set(), put: new Map(), from: new Map(), bag: false };
  for (const a of actions) {
    let m;
    if ((m = a.match(/^\(rev (\d+)\)$/))) plan.rev.add(Number(m[1]));
    else if ((m = a.match(/^\(put (\S+) (\d+)\)$/))) plan.put.set(Number(m[2]), a);
    else if ((m = a.match(/^\(mov (\d+) (\d+)\)$/))) {
      const f = Number(m[1]);
      if (!plan.from.has(f)) plan.from.set(f, new Map());
      plan.from.get(f).set(Number(m[2]), a);
    } else if (a === "(bag)") plan.bag = true;
  }
  return plan;
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

// `seat`, on a person's seat (playView): its state from the server, and `send` for clicks.
function gameView(id, seat = null) {
  const state = {
    setup: null, plies: [], faults: [], end: null, at: 0, follow: true, showDeal: false, live: false,
  };
  let selected = null; // the piece chosen to move, on a person's seat
  const seatBox = h("div", { class: "seat", id: "seat", hidden: !seat });
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
      h("div", { class: "board-wrap" }, seatBox, svg, controls, status),
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
    const pick = seat ? seatPanel(pos) : null;
    drawBoard(svg, s.topology, state.lay, pos.board, {
      chinese: chineseBox.checked, bagGame: s.start === "bag", deal, marks: ply ? actionCells(ply.action) : [],
      pick: pick && pick.draw, onCell: pick ? pick.click : null,
    });
    svg.dataset.ply = state.at;
    svg.dataset.board = pos.board;
    plyLabel.textContent = `ply ${state.at} of ${state.plies.length}${state.end ? "" : state.live ? " (live)" : ""}`;
    // Each player's mark, by a class of style.css (the page's policy allows no inline style);
    // the curve's lines take the same colours as SVG attributes.
    const colours = ["#b3261e", "#1d1d1d", "#2c8a4b", "#2f7ad8"];
    players.replaceChildren(...s.players.map((p, i) => {
      const colour = pos.colours[i];
      const left = pos.clocks_ms ? pos.clocks_ms[i] : null;
      let clock = left === null || left === undefined ? `used ${ms(pos.used_ms[i])}` : ms(left);
      const moving = pos.to_move === p.id;
      const running = moving && state.live && !state.end && state.at === state.plies.length && left !== null && left !== undefined && pos.at_unix_ms;
      const e = h("div", { class: "player" + (moving ? " to-move" : ""), "data-player": p.id },
        h("span", {}, h("b", { class: `mark mark-${i % 4}` }, "■ "), `${p.id}. ${p.name}`,
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
    result.textContent = state.end ? `${state.end.result.win || "aborted"} by ${state.end.result.reason}${state.end.result.adjudication ? ` (${state.end.result.adjudication.by}: ${state.end.result.adjudication.verdict})` : ""}${state.end.result.loser ? ` (player ${state.end.result.loser})` : ""}` : "";
    dealBox.disabled = !state.end;
    document.getElementById("moves-link").hidden = !state.end;
    exchange.hidden = !state.end;
    if (s.players.length + 1 !== exchangeWho.options.length) {
      exchangeWho.append(...s.players.map((p) => h("option", { value: p.id }, `player ${p.id}, ${p.name}`)));
    }
    moves.replaceChildren(...state.plies.map((p, i) => {
      const extra = [p.revealed && `→${p.revealed}`, p.captured && `×${p.captured}`, p.drawn && `drew ${p.drawn}`].filter(Boolean).join(" ");
      return h("div", { class: i + 1 === state.at ? "current" : "", onclick: () => go(i + 1) }, `${p.ply}. P${p.player} ${p.action} ${extra}`,
        p.comment ? h("span", { class: "comment", title: p.comment }, ` { ${p.comment} }`) : "");
    }), ...state.faults.map((f) => h("div", { class: "fault" }, `ply ${f.ply}: player ${f.player}: ${f.code}: ${f.text}`)));
    const cur = moves.querySelector(".current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }

  // A person's seat: what they may click now, and the words above the board. Clicks act only
  // on the position their prompt is about, shown at its end (not while stepping back).
  function seatPanel(pos) {
    const st = seat.state;
    const mine = st && st.player;
    const synced = st && st.my_turn && state.at === state.plies.length && pos.board === st.board &&
      pos.turn === st.turn && pos.to_move === st.to_move;
    const plan = clickPlan(synced ? st.actions : []);
    if (selected !== null && !plan.from.has(selected)) selected = null;
    const act = (a) => { selected = null; seat.send({ act: a, turn: st.turn }); };
    const click = (cell) => {
      if (!synced) return;
      if (selected !== null && plan.from.get(selected).has(cell)) return act(plan.from.get(selected).get(cell));
      if (plan.rev.has(cell)) return act(`(rev ${cell})`);
      if (plan.put.has(cell)) return act(plan.put.get(cell));
      selected = plan.from.has(cell) && selected !== cell ? cell : null;
      redraw();
    };
    const can = new Set([...plan.rev, ...plan.put.keys(), ...plan.from.keys()]);
    const targets = selected !== null ? new Set(plan.from.get(selected).keys()) : new Set();
    // The words.
    let words;
    if (!st) words = "Connecting to your seat…";
    else if (st.state === "over") words = outcome(st);
    else if (st.state === "gone") words = `This seat was given up: ${st.why}`;
    else if (st.my_turn) words = synced ? (selected !== null ? "Your turn: where to?" : "Your turn: click a piece.") : "Your turn…";
    else words = `You are player ${mine}. Waiting for player ${st.to_move}…`;
    const buttons = [];
    if (synced && plan.bag) buttons.push(h("button", { id: "seat-bag", onclick: () => act("(bag)") }, "draw from the bag"));
    if (st && st.state === "playing") buttons.push(h("button", { id: "seat-resign", onclick: () => { if (confirm("Resign this game?")) seat.send({ resign: true }); } }, "resign"));
    if (st && (st.state === "over" || st.state === "gone")) buttons.push(h("a", { href: "#/" }, "back to the games"));
    seatBox.className = "seat" + (synced ? " my-turn" : "");
    seatBox.dataset.state = st ? st.state : "";
    seatBox.dataset.synced = synced ? "1" : "";
    seatBox.dataset.actions = JSON.stringify(synced ? st.actions : []);
    seatBox.replaceChildren(
      h("div", { id: "seat-words" }, words),
      ...(st ? st.errors : []).slice(-1).map((e) => h("div", { class: "error" }, `${e.code}: ${e.text}`)),
      seat.refused ? h("div", { class: "error", id: "seat-refused" }, seat.refused) : "",
      seat.closed && !(st && (st.state === "over" || st.state === "gone")) ? h("div", { class: "error" }, seat.closed) : "",
      h("div", { class: "buttons" }, ...buttons));
    return { draw: { can, selected, targets }, click };
  }

  // "You won", "You lost" or "Draw", from (win P T) and the seat.
  function outcome(st) {
    const m = (st.result || "").match(/\(win (\d+) (\d+)\)/);
    if (!m) return "The game was stopped.";
    const [p, t] = [Number(m[1]), Number(m[2])];
    const me = state.setup && state.setup.players.find((x) => x.id === st.player);
    const single = state.setup && state.setup.players.length === 1;
    if (p === 0 && t === 0) return single ? "Goal missed." : "Draw.";
    const won = p === st.player || (p === 0 && me && me.team === t);
    return `${won ? "You won" : "You lost"} ${st.result}.`;
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
        const r = await fetch(`/api/games/${id}`);
        if (!r.ok) status.textContent = (await r.json()).error;
      } catch (e) { /* the words above stay */ }
    }
  };
  return {
    stop() { ws.close(); clearInterval(tick); document.removeEventListener("keydown", onKey); delete document.body.dataset.caughtUp; delete document.body.dataset.finished; delete document.body.dataset.withheld; },
    redraw,
  };
}
