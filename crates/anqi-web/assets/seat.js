// A person's seat (#/play/TOKEN): the seat's socket, kept open (reconnecting) until the seat
// is done with, and, once its game has started, the game's page (game.js) with the seat's
// controls (seat-panel.js).

import { openSeatSocket } from "./api.js";
import { h } from "./dom.js";
import { gameView } from "./game.js";
import { main } from "./page.js";

export function seatView(token) {
  // What the game's page needs of the seat: its state from the server, `send` for clicks,
  // and why the last click was refused or the socket is closed.
  const seat = { state: null, send: () => {}, game: null, view: null, refused: "", closed: "" };
  const note = h("p", { class: "note", id: "seat-note" }, "Connecting to your seat…");
  main.replaceChildren(h("h1", {}, "Your seat"), note);
  let ws = null, stopped = false, retry = null;
  const ended = () => seat.state && (seat.state.state === "over" || seat.state.state === "gone");
  // The seat outlives its page's connection: reconnect (the token is in the page's address,
  // after the #, which is never sent to a server) until the seat is done with. The token goes
  // as the socket's first message, not in its address, which proxies log.
  const connect = () => {
    ws = openSeatSocket();
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
          note.textContent = `Waiting for ${e.against === "waiting" ? "players to come" : e.against === "ladder" ? "an opponent from the ladder" : "the game to start"}… (keep this page open)`;
        } else if (e.game !== null && !seat.view) {
          seat.view = gameView(e.game, seat);
        }
      }
      if (seat.view) seat.view.redraw();
      else if (e.state === "gone") note.textContent = `This seat was given up: ${e.why}`;
    };
    ws.onclose = (c) => {
      if (stopped) return;
      // 1008: the server read the token and refused it (no such seat, or no longer kept).
      if (c.code === 1008 || (!seat.state && c.code === 1006)) {
        if (!seat.state) {
          note.textContent = c.reason ? `No such seat: ${c.reason}` : "No such seat (or no longer kept).";
          return;
        }
        // The seat was known and is gone: the server restarted while it was held.
        if (!ended()) {
          seat.closed = "";
          seat.state = { ...seat.state, state: "gone", why: `the server no longer has this seat${c.reason ? ` (${c.reason})` : ""}: it stopped while your game was on, and the game ended there` };
        }
        if (seat.view) seat.view.redraw();
        return;
      }
      if (!ended()) {
        seat.closed = c.reason ? `Disconnected (${c.reason}): reconnecting to your seat…` : "The server is not answering: reconnecting to your seat…";
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
