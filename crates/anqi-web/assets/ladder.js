// A ladder's pages (anqi serve --ladder): the leaderboard (#/ladder), polled every 3 s, and a
// player's page (#/players/NAME): its rating after each rated game plotted with its 95%
// interval, its results by opponent, and its games, each linked to the game's page. Ratings
// are Bradley–Terry on the Elo scale, refitted over every game (protocol/LADDER.md).

import { ladder, player } from "./api.js";
import { h, replaceChanged } from "./dom.js";
import { main } from "./page.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 3000;

function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.append(e);
  return e;
}

const playerLink = (name) => h("a", { href: `#/players/${encodeURIComponent(name)}` }, name);
const ratingText = (p) => `${p.rating.toFixed(0)} ± ${p.interval.toFixed(0)}`;

// Polls `load` every few seconds into `show` until stopped (a load still on its way when
// stopped is not shown); says so when the server is gone. { stop(), now() }: now() polls at
// once (after a click that changes what is loaded).
function polled(load, show, status) {
  let stopped = false, timer = null, round = 0;
  const poll = async () => {
    const mine = ++round;
    clearTimeout(timer);
    try {
      const got = await load();
      if (stopped || mine !== round) return;
      show(got);
      status.textContent = "";
      // Polls shown so far (tests wait on it: a poll came and went).
      document.body.dataset.polls = Number(document.body.dataset.polls || 0) + 1;
    } catch (err) {
      if (stopped || mine !== round) return;
      status.textContent = `Cannot reach the server (${err.message || err}); trying again…`;
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
  };
  poll();
  return { stop() { stopped = true; clearTimeout(timer); }, now: poll };
}

// #/ladder: every account, best first.
export function ladderView() {
  const summary = h("p", { id: "ladder-summary", "aria-live": "polite" });
  const status = h("p", { class: "note", role: "status" });
  const table = h("div", { class: "scroll-x", id: "ladder-table" });
  main.replaceChildren(h("h1", {}, "Ladder"), summary, status, table);
  const poll = polled(ladder, (l) => {
    if (!l) {
      summary.textContent = "This server runs no ladder (anqi serve --ladder DATABASE runs one).";
      return;
    }
    summary.textContent = `${l.variant} · ${l.games} rated game${l.games === 1 ? "" : "s"} · ratings: Bradley–Terry over every game, 95% intervals`;
    const head = ["#", "player", "rating", "±95%", "games", "wins", "draws", "losses"];
    replaceChanged(table, h("table", { class: "games standings-table ladder-table" },
      h("thead", {}, h("tr", {}, ...head.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, ...l.players.map((p) => h("tr", { "data-player": p.name, class: p.retired ? "retired" : "" },
        h("td", {}, p.rank ?? "–"), h("th", { scope: "row" }, playerLink(p.name), p.retired ? " (retired)" : ""),
        h("td", {}, p.rank === null ? "unrated" : p.rating.toFixed(0)), h("td", {}, p.interval.toFixed(0)),
        h("td", {}, p.games), h("td", {}, p.wins), h("td", {}, p.draws), h("td", {}, p.losses))))));
    document.body.dataset.ladderGames = l.games;
  }, status);
  return { stop() { poll.stop(); delete document.body.dataset.ladderGames; }, redraw() {} };
}

// #/players/NAME: one account.
export function playerView(name) {
  const heading = h("h1", {}, name);
  const summary = h("p", { id: "player-summary" });
  const status = h("p", { class: "note", role: "status" });
  const chart = document.createElementNS(SVG, "svg");
  chart.setAttribute("class", "curve rating-history");
  chart.setAttribute("role", "img");
  chart.setAttribute("aria-label", `${name}'s rating after each rated game`);
  const opponents = h("div", { class: "scroll-x", id: "player-opponents" });
  const games = h("ul", { id: "player-games", class: "event-games" });
  const more = h("nav", { id: "player-more" });
  main.replaceChildren(heading, summary, status, h("h2", {}, "Rating"), chart,
    h("h2", {}, "By opponent"), opponents, h("h2", {}, "Games"), games, more);
  let offset = 0;
  const poll = polled(() => player(name, offset), (p) => {
    if (!p) {
      summary.textContent = `No account of this ladder is named ${name}.`;
      return;
    }
    summary.textContent = `${p.rated ? `rating ${ratingText(p)}` : "no rated game yet"} · ${p.wins} won, ${p.draws} drawn, ${p.losses} lost${p.retired ? " · retired" : ""}`;
    drawHistory(chart, p.history);
    replaceChanged(opponents, h("table", { class: "games" },
      h("thead", {}, h("tr", {}, ...["opponent", "wins", "draws", "losses"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, ...p.opponents.map((o) => h("tr", {},
        h("th", { scope: "row" }, playerLink(o.name)), h("td", {}, o.wins), h("td", {}, o.draws), h("td", {}, o.losses))))));
    // Another server's game (a shared ladder) has its page there, under its own number.
    replaceChanged(games, ...p.games.map((g) => h("li", { "data-game": g.game },
      g.server === p.server ? h("a", { href: `#/game/${g.game}` }, `#${g.game}`) : `${g.server} #${g.game}`,
      ` ${resultWord(g.score)} against `, playerLink(g.opponent),
      `, seat ${g.seat}, ${g.termination.replaceAll("-", " ")}, ${g.plies} plies`)));
    replaceChanged(more,
      ...(p.offset > 0 ? [h("button", { type: "button", id: "player-newer", onclick: () => { offset = Math.max(0, offset - 100); poll.now(); } }, "newer games")] : []),
      ...(p.offset + p.games.length < p.total ? [h("button", { type: "button", id: "player-older", onclick: () => { offset += 100; poll.now(); } }, "older games")] : []),
      h("span", {}, ` ${p.total} game${p.total === 1 ? "" : "s"}`));
    document.body.dataset.playerGames = p.total;
  }, status);
  return { stop() { poll.stop(); delete document.body.dataset.playerGames; }, redraw() {} };
}

const resultWord = (score) => (score === null ? "no result" : score === 1 ? "won" : score === 0 ? "lost" : "drew");

// The rating after each game as a line, its 95% interval as a band around it.
function drawHistory(svg, history) {
  svg.replaceChildren();
  const w = 600, ht = 160, pad = 6;
  svg.setAttribute("viewBox", `0 0 ${w} ${ht}`);
  svg.setAttribute("preserveAspectRatio", "none");
  if (history.length === 0) return;
  const lo = Math.min(...history.map((p) => p.rating - p.interval));
  const hi = Math.max(...history.map((p) => p.rating + p.interval));
  const n = Math.max(2, history.length);
  const x = (i) => pad + ((w - 2 * pad) * i) / (n - 1);
  const y = (r) => ht - pad - ((ht - 2 * pad) * (r - lo)) / Math.max(1, hi - lo);
  const upper = history.map((p, i) => `${x(i)},${y(p.rating + p.interval)}`);
  const lower = history.map((p, i) => `${x(i)},${y(p.rating - p.interval)}`).reverse();
  svgEl("polygon", { points: [...upper, ...lower].join(" "), class: "band" }, svg);
  svgEl("polyline", { points: history.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "rating" }, svg);
  svg.dataset.points = history.length;
}
