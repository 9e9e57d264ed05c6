// A finished game's exchange between the referee and its players (GET
// /api/games/{id}/exchange): fetched when first opened, shown for every player or one.

import { exchange } from "./api.js";
import { h } from "./dom.js";

// The panel of game `id`: `element` to place on the page, and update(players, over) at every
// redraw (it shows once the game is over, with a choice per player).
export function exchangePanel(id) {
  const who = h("select", { id: "exchange-player" }, h("option", { value: "" }, "every player"));
  const lines = h("div", { class: "moves", id: "exchange-lines" });
  const element = h("details", { id: "exchange", hidden: true },
    h("summary", {}, "The exchange between the referee and the players"), who, lines);
  let data = null;
  const show = () => {
    if (!data) return;
    const player = who.value;
    lines.replaceChildren(...data.lines.filter((l) => !player || String(l.player) === player).map((l) =>
      h("div", { class: l.by === "referee" ? "sent" : "got" },
        `ply ${l.ply} ${l.by === "referee" ? `→ P${l.player}` : `P${l.player} →`} ${l.text}`)),
      data.dropped ? h("div", {}, `(${data.dropped} more lines not kept)`) : "");
  };
  who.addEventListener("change", show);
  element.addEventListener("toggle", async () => {
    if (!element.open || data) return;
    const r = await exchange(id);
    if (!r.ok) { lines.textContent = r.body.error; return; }
    data = r.body;
    show();
  });
  return {
    element,
    update(players, over) {
      element.hidden = !over;
      if (players.length + 1 !== who.options.length) {
        who.append(...players.map((p) => h("option", { value: p.id }, `player ${p.id}, ${p.name}`)));
      }
    },
  };
}
