// A tournament's standings (#/standings), polled every 2 s: the games finished out of the
// schedule, the time elapsed and left, the SPRT's LLR between its bounds when the event has
// one, and the standings as `anqi tournament` prints them.

import { event } from "./api.js";
import { h } from "./dom.js";
import { secondsText } from "./format.js";
import { main } from "./page.js";

export function standings() {
  const progress = h("progress", { id: "event-progress", max: 1, value: 0 });
  const summary = h("p", { id: "event-summary" });
  const sprt = h("div", { id: "event-sprt" });
  const table = h("pre", { id: "event-standings", class: "standings" });
  main.replaceChildren(h("h1", {}, "Standings"), progress, summary, sprt, table);
  let stopped = false, timer = null;
  const poll = async () => {
    try {
      const e = await event();
      if (e) {
        progress.max = e.total;
        progress.value = e.finished;
        summary.textContent = `${e.finished} of ${e.total} games · ${secondsText(e.elapsed_s)} elapsed · ${e.finished < e.total ? `about ${secondsText(e.eta_s)} left` : "done"}`;
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
