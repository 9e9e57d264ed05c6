// The lobby (#/): the featured game (the live game most watched, else the latest), drawn live;
// the server's games a page at a time, each with a picture of its board, filtered by player
// and variant, polled every 2 s; and, where people can play, the form to sit down
// (sit-down.js).

import { listGames, openGameFeed, seatsInfo } from "./api.js";
import { drawBoard, layout, thumbnail } from "./board.js";
import { h, replaceChanged } from "./dom.js";
import { cellNames, listedResultWords } from "./notation.js";
import { chinese, main } from "./page.js";
import { sitDownPanel } from "./sit-down.js";

// Games a page.
const PAGE = 50;

export function lobby() {
  const player = h("input", { placeholder: "player", id: "filter-player", "aria-label": "only the games of this player (exact name)", list: "known-players" });
  const variant = h("input", { placeholder: "variant", id: "filter-variant", "aria-label": "only the games of this variant (exact name)", list: "known-variants" });
  const knownPlayers = h("datalist", { id: "known-players" });
  const knownVariants = h("datalist", { id: "known-variants" });
  const body = h("tbody");
  const status = h("p", { class: "note", id: "lobby-status", "aria-live": "polite" });
  const play = h("div", { class: "play", id: "play", hidden: true });
  // The rows, drawn again when the featured game teaches the lobby a board's shape. A game's
  // row stays the same element from poll to poll, its cells brought up to date: a link a
  // person (or a test) is about to click is never swapped under the pointer.
  let shown = [];
  const rows = new Map(); // game -> { key, tr }
  const drawRows = () => {
    const next = shown.map((g) => {
      const key = JSON.stringify([g, featured.layouts.has(g.variant)]);
      const old = rows.get(g.game);
      if (old && old.key !== key) fillRow(old.tr, g, featured.layouts);
      return [g.game, old ? { key, tr: old.tr } : { key, tr: fillRow(null, g, featured.layouts) }];
    });
    rows.clear();
    for (const [game, r] of next) rows.set(game, r);
    const trs = next.map(([, r]) => r.tr);
    if (trs.length !== body.children.length || trs.some((tr, i) => body.children[i] !== tr)) body.replaceChildren(...trs);
  };
  const featured = featuredPanel(() => drawRows());
  const prev = h("button", { id: "page-prev", onclick: () => turn(-1) }, "← newer");
  const next = h("button", { id: "page-next", onclick: () => turn(1) }, "older →");
  main.replaceChildren(
    play,
    h("div", { class: "lobby" },
      featured.element,
      h("div", { class: "list" },
        h("h1", {}, "Games"),
        h("div", { class: "filters" }, player, variant, knownPlayers, knownVariants),
        h("div", { class: "scroll-x" }, h("table", { class: "games" },
          h("thead", {}, h("tr", {}, ...["game", "board", "variant", "players", "ply", "result"].map((t) => h("th", { scope: "col" }, t)))),
          body)),
        h("div", { class: "pages" }, prev, status, next))));
  // One poll at a time: a newer one (a page turned, a filter changed) makes an older one's
  // answer stale, and it is dropped.
  let offset = 0, total = 0, timer = null, stopped = false, generation = 0;
  const turn = (by) => { offset = Math.max(0, offset + by * PAGE); poll(); };
  const refilter = () => { offset = 0; poll(); };
  player.addEventListener("change", refilter);
  variant.addEventListener("change", refilter);
  const seats = sitDownPanel(play);
  const poll = async () => {
    clearTimeout(timer);
    const mine = ++generation;
    const current = () => !stopped && mine === generation;
    try {
      const page = await listGames({ limit: PAGE, offset, player: player.value.trim(), variant: variant.value.trim() });
      if (!current()) return;
      total = page.total ?? page.games.length;
      shown = page.games;
      drawRows();
      known(knownPlayers, page.games.flatMap((g) => g.players));
      known(knownVariants, page.games.map((g) => g.variant));
      status.textContent = total ? `games ${offset + 1}–${offset + page.games.length} of ${total}` : "No game yet: games appear here as soon as they start.";
      prev.disabled = offset === 0;
      next.disabled = offset + PAGE >= total;
      featured.show(page.featured ?? null);
      const info = await seatsInfo();
      if (!current()) return;
      seats.update(info);
      delete document.body.dataset.lost;
    } catch (e) {
      if (!current()) return;
      status.textContent = `Cannot reach the server (${e.message || e}): trying again…`;
      document.body.dataset.lost = "1";
    }
    timer = setTimeout(poll, 2000);
  };
  timer = setTimeout(poll, 0);
  return { stop() { stopped = true; clearTimeout(timer); featured.stop(); delete document.body.dataset.lost; }, redraw() { featured.redraw(); } };
}

// Fills a datalist with the names seen, once each.
function known(list, names) {
  const have = new Set([...list.options].map((o) => o.value));
  list.append(...[...new Set(names)].filter((n) => !have.has(n)).map((n) => h("option", { value: n })));
}

// One game's row, made (`tr` null) or brought up to date: its link (kept: a link with the
// keyboard's focus keeps it as the game's plies count up), a picture of its board (once the
// lobby knows the variant's shape), variant, players, plies, and how it stands.
function fillRow(tr, g, layouts) {
  if (!tr) tr = h("tr", { "data-game": g.game });
  tr.className = g.state;
  const lay = layouts.get(g.variant);
  replaceChanged(tr, h("td", {}, h("a", { href: `#/game/${g.game}` }, `#${g.game}`)),
    h("td", {}, lay && g.board ? thumbnail(lay, g.board) : ""),
    h("td", {}, g.variant),
    h("td", {}, g.players.join(" – ")),
    h("td", {}, g.ply),
    h("td", { title: g.withheld || "" }, g.state === "running" ? `playing${g.observers ? ` · ${g.observers} watching` : ""}${g.withheld ? " · withheld" : ""}`
      : g.withheld ? "withheld: its deal is still in play" : listedResultWords(g)));
  return tr;
}


// The featured game: the one GET /api/games names, watched live on its feed. Also learns
// each variant's board shape (from the games' setups), for the rows' pictures, and calls
// `learned` when it learns a new one.
function featuredPanel(learned) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const title = h("h2", {}, "Featured game");
  const words = h("p", { class: "note", id: "featured-words" });
  const link = h("a", { id: "featured-link" }, "watch");
  const element = h("section", { class: "featured", id: "featured", hidden: true, "aria-label": "featured game" }, title, svg, words, link);
  const layouts = new Map();
  let id = null, ws = null, setup = null, board = null, plies = 0, over = false, stopped = false;
  const draw = () => {
    if (!setup) return;
    drawBoard(svg, setup.topology, layouts.get(setup.variant), board, { chinese: chinese(), names: cellNames(setup.topology) });
    svg.setAttribute("aria-label", `the board of game ${id}`);
    words.textContent = `#${id} · ${setup.variant} · ${setup.players.map((p) => p.name).join(" – ")} · ply ${plies}${over ? " · finished" : " · live"}`;
  };
  const show = (game) => {
    if (stopped || game === id) return;
    if (ws) ws.close();
    id = game; setup = null; plies = 0; over = false;
    element.hidden = game === null;
    element.dataset.game = game ?? "";
    if (game === null) return;
    link.href = `#/game/${game}`;
    ws = openGameFeed(game);
    // A feed that closes before its game's end (the server went away, or dropped this page)
    // is opened again at the next poll.
    ws.onclose = () => { if (!over && id === game) id = null; };
    ws.onmessage = (m) => {
      const e = JSON.parse(m.data);
      if (e.type === "setup") {
        setup = e;
        board = e.position.board;
        if (!layouts.has(e.variant)) {
          layouts.set(e.variant, layout(e.topology));
          learned();
        }
      } else if (e.type === "ply") {
        board = e.position.board;
        plies = e.ply;
      } else if (e.type === "end") {
        over = true;
      }
      if (e.type !== "setup" || e.position) draw();
    };
  };
  return { element, layouts, show, redraw: draw, stop() { stopped = true; if (ws) ws.close(); } };
}
