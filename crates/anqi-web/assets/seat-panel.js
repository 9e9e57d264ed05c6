// What a person's seat adds to its game's page (game.js): the words above the board, the
// cells a click acts on and what it sends (only a legal action of the seat's prompt), and
// the buttons (draw from the bag, abort before the first ply, resign, and once over: play
// again, back to the games), and
// the sound of a turn coming to the person.

import { sitDown } from "./api.js";
import { h } from "./dom.js";
import { againRequest } from "./sit-down.js";
import { oneSide } from "./notation.js";
import { play } from "./sound.js";

// The controls of `seat` (seat.js), drawn into `box`; `redraw` redraws the game's page (a
// piece chosen shows where it may go).
export function seatControls(seat, box, redraw) {
  const wordsBox = h("div", { id: "seat-words", "aria-live": "polite" });
  const messages = h("div");
  const buttonRow = h("div", { class: "buttons" });
  box.replaceChildren(wordsBox, messages, buttonRow);
  let selected = null; // the piece chosen to move
  let heardTurn = null; // the turn whose sound was played
  let shownMessages = null; // the messages drawn, as text: drawn again only when they change
  const button = keptButtons();

  // What may be clicked on `pos`, the position shown of `game` (the game page's state), and
  // the words. Clicks act only on the position their prompt is about, shown at its end (not
  // while stepping back). Returns { draw: what board.js marks, click(cell) }.
  function update(pos, game) {
    const st = seat.state;
    const mine = st && st.player;
    const synced = st && st.my_turn && game.at === game.plies.length && pos.board === st.board &&
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
    else if (st.state === "over") words = outcome(st, game.setup);
    else if (st.state === "gone") words = `This seat was given up: ${st.why}`;
    else if (st.my_turn) words = synced ? turnWords(plan, selected) : "Your turn…";
    else words = `You are player ${mine}. Waiting for player ${st.to_move}…`;
    if (synced && heardTurn !== st.turn) { heardTurn = st.turn; play("turn"); }
    const buttons = [];
    if (synced && plan.bag) buttons.push(button("seat-bag", "draw from the bag", () => act("(bag)")));
    // Abort, with no result: on the person's first turn, before any ply (player 1 only).
    if (synced && game.plies.length === 0 && st.turn === 0) buttons.push(button("seat-abort", "abort (no result)", () => seat.send({ abort: true })));
    if (st && st.state === "playing") buttons.push(button("seat-resign", "resign", () => { if (confirm("Resign this game?")) seat.send({ resign: true }); }));
    const again = lastRequest();
    if (st && (st.state === "over" || st.state === "gone") && again) {
      buttons.push(button("seat-again", again.against === "waiting" ? "play again" : again.against === "ladder" ? "play again (rated)" : `play again against anqi-bot ${again.against}`, () => playAgain(again, box)));
    }
    if (st && (st.state === "over" || st.state === "gone")) buttons.push(button("seat-back", "back to the games", null));
    box.className = "seat" + (synced ? " my-turn" : "");
    box.dataset.state = st ? st.state : "";
    box.dataset.synced = synced ? "1" : "";
    box.dataset.actions = JSON.stringify(synced ? st.actions : []);
    // Only the words are read out as they change (a live region that stays). Nothing is
    // drawn anew unless it changed: a button redrawn under a person's click or keyboard focus
    // would lose it (the game's page redraws on every event: a ply, the seat's state, the
    // exchange asked once the game is over).
    if (wordsBox.textContent !== words) wordsBox.textContent = words;
    const lastError = (st ? st.errors : []).slice(-1).map((e) => `${e.code}: ${e.text}`)[0] || "";
    const closed = seat.closed && !(st && (st.state === "over" || st.state === "gone")) ? seat.closed : "";
    const said = JSON.stringify([lastError, seat.refused || "", closed]);
    if (said !== shownMessages) {
      shownMessages = said;
      messages.replaceChildren(
        lastError ? h("div", { class: "error" }, lastError) : "",
        seat.refused ? h("div", { class: "error", id: "seat-refused" }, seat.refused) : "",
        closed ? h("div", { class: "error" }, closed) : "");
    }
    const row = [...buttonRow.children];
    if (row.length !== buttons.length || row.some((b, i) => b !== buttons[i])) {
      // A button with the keyboard's focus that goes (resign once the game is over) hands
      // the focus on to the row's first one (play again), not to the page's top.
      const had = buttonRow.contains(document.activeElement) ? document.activeElement : null;
      buttonRow.replaceChildren(...buttons);
      if (had && document.activeElement !== had) (buttons.includes(had) ? had : buttons[0])?.focus();
    }
    return { draw: { can, selected, targets }, click };
  }

  return { update };
}

// The seat's buttons, each made once and kept by its id: button(id, label, onclick) is the
// same element from one drawing to the next, with its label and what a click does brought up
// to date. A null `onclick` makes the link back to the games.
function keptButtons() {
  const kept = new Map(); // id -> { element, onclick }
  return (id, label, onclick) => {
    let b = kept.get(id);
    if (!b) {
      b = { onclick };
      b.element = onclick === null
        ? h("a", { id, href: "#/", class: "button" })
        : h("button", { id, onclick: () => b.onclick() });
      kept.set(id, b);
    }
    b.onclick = onclick;
    if (b.element.textContent !== label) b.element.textContent = label;
    return b.element;
  };
}

// The words of a turn: what the prompt allows.
function turnWords(plan, selected) {
  if (selected !== null) return "Your turn: where to? (click the piece again to choose another)";
  const clicks = plan.rev.size + plan.put.size + plan.from.size;
  if (plan.bag && clicks === 0) return "Your turn: draw from the bag.";
  if (plan.put.size && !plan.rev.size && !plan.from.size) return "Your turn: click where to put the piece in your hand.";
  if (plan.bag) return "Your turn: click a piece, or draw from the bag.";
  if (plan.rev.size && !plan.from.size) return "Your turn: click a face-down piece to flip it.";
  return "Your turn: click a piece to flip or move.";
}

// The request the person last sat down with (sit-down.js keeps it for this tab), or null.
function lastRequest() {
  try { return JSON.parse(sessionStorage.getItem("anqi.seat-request")); } catch (e) { return null; }
}

// Sits the person down again as they last did, with a new seed of their own, and opens the
// new seat.
async function playAgain(request, box) {
  const seed = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const r = await sitDown(request.against === "ladder" ? againRequest(request) : { ...request, seed });
  if (!r.ok) { box.append(h("div", { class: "error", id: "seat-again-error" }, r.body.error)); return; }
  location.hash = `#/play/${r.body.token}`;
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

// "You won!", "You lost." or "Draw.", from (win P T) and the seat; `setup` is the game's
// (the game's page says how, in words, below).
function outcome(st, setup) {
  const m = (st.result || "").match(/\(win (\d+) (\d+)\)/);
  if (!m) return "The game is over.";
  const [p, t] = [Number(m[1]), Number(m[2])];
  const me = setup && setup.players.find((x) => x.id === st.player);
  const single = setup && oneSide(setup);
  if (p === 0 && t === 0) return single ? "Goal missed." : "Draw.";
  const won = p === st.player || (p === 0 && me && me.team === t);
  return won ? "You won!" : "You lost.";
}
