// Sitting down to play (a server with [http] humans = true): the lobby's form (a name, the
// opponents: one of the server's bots, by strength, or whoever comes; the seat; the time
// control against bots; a seed) and the players
// waiting for a game, whose seat a visitor may take. On a ladder, the form asks for the
// account's secret instead (or none, to play as a guest where the ladder seats guests), and
// matchmaking pairs whoever waits. A seat taken opens #/play/TOKEN.

import { sitDown } from "./api.js";
import { h, replaceChanged } from "./dom.js";

// How strong each of the server's bots plays (seats.rs's bots; BENCHMARKS.md has their Elo).
const STRENGTH = { random: "easiest: plays at random", greedy: "easy: takes what it can", search: "strongest: searches ahead" };

// The form, drawn into `box` once the server says people can play; update(info) with what
// GET /api/seats says, at every poll of the lobby.
export function sitDownPanel(box) {
  const name = h("input", { id: "play-name", placeholder: "your name", "aria-label": "your name", size: 14, value: localStorage.getItem("anqi.name") || "guest" });
  const against = h("select", { id: "play-against", "aria-label": "against" });
  const seat = h("select", { id: "play-seat", "aria-label": "your seat" }, h("option", { value: 0 }, "any seat"));
  const time = h("select", { id: "play-time", "aria-label": "time control" }, h("option", { value: "" }, "the server's clock"));
  const seed = h("input", { id: "play-seed", placeholder: "your seed (optional)", "aria-label": "your seed (optional)", size: 20 });
  const waitingList = h("ul", { id: "waiting" });
  const message = h("span", { class: "error", id: "play-error" });
  let built = false;
  const sit = async (who) => {
    message.textContent = "";
    localStorage.setItem("anqi.name", name.value.trim());
    // The person's contribution to the deal: typed, or made up here.
    const mine = seed.value.trim() || [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const request = { name: name.value.trim(), against: who, seat: Number(seat.value), time: who === "waiting" ? "" : time.value };
    const r = await sitDown({ ...request, seed: mine });
    if (!r.ok) { message.textContent = r.body.error; return; }
    // Kept for this tab's "play again" (never the seed: a new one is made each game).
    sessionStorage.setItem("anqi.seat-request", JSON.stringify(request));
    location.hash = `#/play/${r.body.token}`;
  };
  let ladder = null;
  return {
    update(info) {
      if (!info.humans) { box.hidden = true; return; }
      box.hidden = false;
      if (info.ladder) {
        if (!ladder) { ladder = ladderForm(info); box.replaceChildren(ladder.form, h("div", {}, waitingList)); }
        replaceChanged(waitingList, ...info.waiting.map((w) => h("li", {}, `${w.name} waits for a game`)));
        return;
      }
      if (!built) {
        built = true;
        against.replaceChildren(...info.bots.map((b) => h("option", { value: b }, `anqi-bot ${b}${STRENGTH[b] ? ` (${STRENGTH[b]})` : ""}`)), h("option", { value: "waiting" }, "whoever comes to play"));
        seat.append(...[...Array(info.players).keys()].map((i) => h("option", { value: i + 1 }, `player ${i + 1}${i === 0 ? " (moves first)" : ""}`)));
        time.append(...(info.time_controls || []).map((t) => h("option", { value: t }, `${t} (game + increment per move)`)));
        // The clock is chosen against bots only: with the players waiting, it is the server's.
        const onlyBots = () => { time.disabled = against.value === "waiting"; };
        against.addEventListener("change", onlyBots);
        onlyBots();
        box.replaceChildren(
          h("h2", {}, `Play ${info.variant}`),
          h("form", { onsubmit: (e) => { e.preventDefault(); sit(against.value); } },
            name, "against", against, seat, time, h("button", { type: "submit", id: "play-start" }, "Play"), seed),
          h("div", {}, waitingList), message);
      }
      // Each row kept as its seconds count up (a click on its button is not lost to a poll).
      replaceChanged(waitingList, ...info.waiting.map((w) => h("li", {},
        `${w.name} waits for a game (${Math.max(0, Math.round((Date.now() - w.since_unix_ms) / 1000))} s) `,
        h("button", { class: "take-seat", onclick: () => sit("waiting") }, "take the seat"))));
    },
  };
}

// Where this browser keeps its ladder secret (a guest's, given by the server, or one typed).
const SECRET_KEY = "anqi.ladder-secret";

// The ladder's form: the account's secret (kept in this browser), or none for a guest.
function ladderForm(info) {
  const secret = h("input", { id: "ladder-secret", type: "password", autocomplete: "off", size: 40, value: localStorage.getItem(SECRET_KEY) || "", placeholder: info.ladder.guests ? "your account's secret (empty: play as a guest)" : "your account's secret (anqi-...)", "aria-label": "your ladder account's secret" });
  const message = h("span", { class: "error", id: "play-error" });
  const note = h("p", { id: "ladder-note" }, info.ladder.guests
    ? "Rated games against whoever waits, paired by rating. Without a secret you play as a guest: this browser keeps your guest's secret, so you come back as the same guest."
    : "Rated games against whoever waits, paired by rating. Ask this ladder's operator for an account.");
  const form = h("form", { id: "ladder-play", onsubmit: async (e) => {
    e.preventDefault();
    message.textContent = "";
    const typed = secret.value.trim();
    const r = await sitDown({ against: "ladder", secret: typed });
    if (!r.ok) { message.textContent = r.body.error; return; }
    // A guest's secret is given once: kept here, so that "play again" and a later visit are
    // the same guest. A typed one is kept too (on this browser only).
    localStorage.setItem(SECRET_KEY, r.body.ladder.secret || typed);
    sessionStorage.setItem("anqi.seat-request", JSON.stringify({ against: "ladder" }));
    location.hash = `#/play/${r.body.token}`;
  } }, h("h2", {}, `Play ${info.variant} on the ladder`), note, secret, h("button", { type: "submit", id: "play-start" }, "Play rated"), message);
  return { form };
}

// The request "play again" sends: on a ladder, with the secret this browser keeps.
export function againRequest(request) {
  return request.against === "ladder" ? { against: "ladder", secret: localStorage.getItem(SECRET_KEY) || "" } : request;
}
