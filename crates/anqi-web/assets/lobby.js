// The lobby (#/): every game of the server, running and finished, filtered by player and
// variant, polled every 2 s; and, where people can play, the form to sit down (sit-down.js).

import { listGames, seatsInfo } from "./api.js";
import { h } from "./dom.js";
import { main } from "./page.js";
import { sitDownPanel } from "./sit-down.js";

export function lobby() {
  const player = h("input", { placeholder: "player", id: "filter-player" });
  const variant = h("input", { placeholder: "variant", id: "filter-variant" });
  const body = h("tbody");
  const status = h("p", { class: "note" });
  const play = h("div", { class: "play", id: "play", hidden: true });
  main.replaceChildren(
    play,
    h("h1", {}, "Games"),
    h("div", { class: "filters" }, player, variant),
    h("div", { class: "scroll-x" }, h("table", { class: "games" },
      h("thead", {}, h("tr", {}, ...["game", "variant", "players", "ply", "result"].map((t) => h("th", {}, t)))),
      body)),
    status);
  let games = [];
  const show = () => {
    const p = player.value.trim(), v = variant.value.trim();
    const rows = games.filter((g) => (!p || g.players.some((n) => n.includes(p))) && (!v || g.variant.includes(v)));
    body.replaceChildren(...rows.map(row));
    status.textContent = games.length ? `${rows.length} of ${games.length} games` : "No game yet: games appear here as soon as they start.";
  };
  player.addEventListener("input", show);
  variant.addEventListener("input", show);
  let stopped = false;
  const seats = sitDownPanel(play);
  const poll = async () => {
    try {
      games = await listGames();
      show();
      seats.update(await seatsInfo());
    } catch (e) {
      status.textContent = `Cannot reach the server: ${e}`;
    }
    if (!stopped) timer = setTimeout(poll, 2000);
  };
  let timer = setTimeout(poll, 0);
  return { stop() { stopped = true; clearTimeout(timer); }, redraw() {} };
}

// One game's row: its link, variant, players, plies, and how it stands.
function row(g) {
  return h("tr", { class: g.state, "data-game": g.game },
    h("td", {}, h("a", { href: `#/game/${g.game}` }, `#${g.game}`)),
    h("td", {}, g.variant),
    h("td", {}, g.players.join(" – ")),
    h("td", {}, g.ply),
    h("td", { title: g.withheld || "" }, g.state === "running" ? `playing${g.observers ? ` · ${g.observers} watching` : ""}${g.withheld ? " · withheld" : ""}`
      : g.withheld ? "withheld: its deal is still in play" : `${g.win || "aborted"} ${g.reason}`));
}
