// The server's JSON API and WebSocket feeds (protocol/WEB.md, The API): every route the page
// uses, in one place. The page is a client like any other: it knows nothing the API does not
// say.

// GET /api/games: a page of the games, running first, then finished, newest first:
// { games, total, featured }. `query`: { limit, offset, player, variant } (each optional;
// player and variant are exact names).
export async function listGames(query = {}) {
  const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ""));
  const r = await fetch(`/api/games${q.size ? `?${q}` : ""}`);
  if (!r.ok) throw new Error((await r.json()).error);
  return r.json();
}

// GET /api/seats: whether people can play here, against what, and who waits.
export async function seatsInfo() {
  return (await fetch("/api/seats")).json();
}

// Whether this server runs a tournament (GET /api/event answers only then).
export async function hasEvent() {
  return (await fetch("/api/event")).ok;
}

// GET /api/event: the tournament's progress and standings; null before there are any.
export async function event() {
  const r = await fetch("/api/event");
  return r.ok ? r.json() : null;
}

// GET /api/ladder: the ladder's leaderboard (anqi serve --ladder); null where there is none.
export async function ladder() {
  const r = await fetch("/api/ladder");
  if (r.status === 404) return null;
  if (!r.ok) throw new Error((await r.json()).error);
  return r.json();
}

// Whether this server runs a ladder.
export async function hasLadder() {
  return (await fetch("/api/ladder")).ok;
}

// GET /api/players/{name}?offset=N: one account of the ladder, its games from the Nth latest;
// null when no account has the name (or there is no ladder).
export async function player(name, offset = 0) {
  const r = await fetch(`/api/players/${encodeURIComponent(name)}${offset ? `?offset=${offset}` : ""}`);
  if (r.status === 404) return null;
  if (!r.ok) throw new Error((await r.json()).error);
  return r.json();
}

// POST /api/seats: sits a person down. { ok, body }: body is { token } or { error }.
export async function sitDown(request) {
  const r = await fetch("/api/seats", {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  return { ok: r.ok, body: await r.json() };
}

// GET /api/games/{id}/exchange: a finished game's lines between referee and players.
// { ok, body }: body is the exchange or { error }.
export async function exchange(id) {
  const r = await fetch(`/api/games/${id}/exchange`);
  return { ok: r.ok, body: await r.json() };
}

// Why the API refuses game `id` (unknown, withheld...); null when it does not.
export async function gameRefusal(id) {
  const r = await fetch(`/api/games/${id}`);
  return r.ok ? null : (await r.json()).error;
}

// Links to a game as JSON and, once over, as a move list.
export const gameJsonUrl = (id) => `/api/games/${id}`;
export const movesUrl = (id) => `/api/games/${id}/moves.txt`;

// GET /api/games/{id}/live: the game's events so far, then as they happen.
export function openGameFeed(id) {
  return openSocket(`/api/games/${id}/live`);
}

// GET /api/seats/live: a person's seat (its token goes as the first message).
export function openSeatSocket() {
  return openSocket("/api/seats/live");
}

function openSocket(path) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${proto}//${location.host}${path}`);
}
