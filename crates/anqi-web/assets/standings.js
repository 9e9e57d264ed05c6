// A tournament's standings (#/standings), polled every 2 s: the games finished out of the
// schedule, the time elapsed and left, the SPRT's LLR between its bounds when the event has
// one, the standings as a table (rank, engine, games, points, score, Elo with its interval,
// wins, draws, losses) with the crosstable, every game of the event linked, and the text
// `anqi tournament` prints. Once the event is over (`done`) the page says so and shows the
// final standings for as long as the organizer keeps the pages up.

import { event, listGames } from "./api.js";
import { h, replaceChanged } from "./dom.js";
import { secondsText } from "./format.js";
import { listedResultWords } from "./notation.js";
import { main } from "./page.js";

export function standings() {
  const heading = h("h1", { id: "event-heading" }, "Standings");
  const progress = h("progress", { id: "event-progress", max: 1, value: 0, "aria-label": "games finished" });
  const summary = h("p", { id: "event-summary", "aria-live": "polite" });
  const sprt = h("div", { id: "event-sprt" });
  const table = h("div", { class: "scroll-x", id: "event-table" });
  const cross = h("div", { class: "scroll-x", id: "event-cross" });
  const games = h("ul", { id: "event-games", class: "event-games" });
  const text = h("pre", { id: "event-standings", class: "standings" });
  main.replaceChildren(heading, progress, summary, sprt, table, cross,
    h("h2", {}, "Games"), games, h("details", {}, h("summary", {}, "As text"), text));
  let stopped = false, timer = null, listed = { finished: -1, games: 0, withheld: 0 };
  const poll = async () => {
    try {
      const e = await event();
      if (e) {
        progress.max = e.total;
        progress.value = e.finished;
        const over = e.done || e.finished >= e.total;
        heading.textContent = over ? "Final standings" : "Standings";
        summary.textContent = `${e.finished} of ${e.total} games · ${secondsText(e.elapsed_s)} elapsed · ${over ? "the event is over" : `about ${secondsText(e.eta_s)} left`}`;
        const s = e.standings.sprt;
        if (s) {
          const at = Math.max(0, Math.min(1, (s.llr - s.lower) / (s.upper - s.lower)));
          replaceChanged(sprt,
            h("span", {}, `SPRT ${s.first} vs ${s.second} [${s.elo0}, ${s.elo1}]: LLR ${s.llr.toFixed(2)} in (${s.lower.toFixed(2)}, ${s.upper.toFixed(2)}), ${s.verdict} `),
            h("meter", { min: 0, max: 1, value: at, "aria-label": "the SPRT's log-likelihood ratio between its bounds" }));
        }
        replaceChanged(table, engineTable(e.standings));
        replaceChanged(cross, crossTable(e.standings));
        text.textContent = e.text;
        document.body.dataset.finishedGames = e.finished;
        if (over) document.body.dataset.eventOver = "1";
        // The games again only when they may have changed (the list is long, and a link
        // with the keyboard's focus would lose it): more have finished, the list did not yet
        // hold them all (it may lag the standings by a moment), or some were withheld.
        if (e.finished !== listed.finished || listed.games < e.finished || listed.withheld > 0) {
          const list = await listGames({ state: "finished" });
          replaceChanged(games, ...list.games.slice().reverse().map(gameItem));
          listed = { finished: e.finished, games: list.games.length, withheld: list.games.filter((g) => g.withheld).length };
        }
      } else {
        summary.textContent = "No standings yet: they come once a game has finished.";
      }
    } catch (err) {
      summary.textContent = `Cannot reach the server (${err.message || err}): the event's pages are down; trying again…`;
    }
    if (!stopped) timer = setTimeout(poll, 2000);
  };
  poll();
  return { stop() { stopped = true; clearTimeout(timer); delete document.body.dataset.finishedGames; delete document.body.dataset.eventOver; }, redraw() {} };
}

const signed = (x) => (x === null || x === undefined ? "∞" : `${x > 0 ? "+" : ""}${Math.round(x)}`);

// An engine's Elo, or why there is none yet: too few games (`small_sample`, as `anqi report`
// says it), or a score of all or nothing.
const eloText = (e) => (e.small_sample ? "sample too small"
  : e.elo === null ? (e.score >= 1 ? "+∞" : e.score <= 0 ? "−∞" : "–") : signed(e.elo));

// The engines, best first.
function engineTable(st) {
  const head = ["#", "engine", "games", "points", "score", "Elo", "95%", "wins", "draws", "losses"];
  const few = st.engines.some((e) => e.small_sample);
  return h("table", { class: "games standings-table" },
    ...(few ? [h("caption", {}, "An engine with too few games has no Elo yet: its sample is too small")] : []),
    h("thead", {}, h("tr", {}, ...head.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, ...st.engines.map((e, i) => h("tr", { "data-engine": e.name },
      h("td", {}, i + 1), h("th", { scope: "row" }, e.name), h("td", {}, e.games), h("td", {}, e.points),
      h("td", {}, `${(100 * e.score).toFixed(1)}%`),
      h("td", {}, eloText(e)),
      h("td", {}, e.small_sample || (e.elo_low === null && e.elo_high === null) ? "–" : `[${signed(e.elo_low)}, ${signed(e.elo_high)}]`),
      h("td", {}, e.wins), h("td", {}, e.draws), h("td", {}, e.losses)))));
}

// Points of each row's engine against each column's, out of their games.
function crossTable(st) {
  const names = st.engines.map((e) => e.name);
  if (names.length < 2) return "";
  return h("table", { class: "games crosstable" },
    h("caption", {}, "Crosstable: the row's points against the column, out of their games"),
    h("thead", {}, h("tr", {}, h("td", {}), ...names.map((n) => h("th", { scope: "col" }, n)))),
    h("tbody", {}, ...names.map((a) => h("tr", {}, h("th", { scope: "row" }, a), ...names.map((b) => {
      const s = st.crosstable[a] && st.crosstable[a][b];
      return h("td", {}, a === b ? "" : s ? `${s.points}/${s.games}` : "–");
    })))));
}

// One finished game of the event, linked.
function gameItem(g) {
  return h("li", { "data-game": g.game }, h("a", { href: `#/game/${g.game}` }, `#${g.game}`), ` ${g.players.join(" – ")}: `,
    g.withheld ? "withheld: its deal is still in play" : listedResultWords(g));
}
