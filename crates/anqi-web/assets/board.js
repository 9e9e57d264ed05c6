// Drawing a board from its topology (anqi_core::view::TopologyView): cells at their grid
// positions when the variant drew the board as a grid (rectangles, the cross, `(coords ...)`),
// on a circle otherwise, with a line for every step between two cells.

const SVG = "http://www.w3.org/2000/svg";
const STEP = 56; // pixels between grid positions
const R = 23; // piece radius

// Chinese characters per wire letter: red upper case, black lower case.
const HANZI = {
  K: "帥", G: "仕", B: "相", R: "俥", N: "傌", C: "炮", P: "兵",
  k: "將", g: "士", b: "象", r: "車", n: "馬", c: "砲", p: "卒",
};

export function pieceLabel(letter, chinese) {
  return chinese ? (HANZI[letter] || letter) : letter;
}

export function isRed(letter) {
  return letter >= "A" && letter <= "Z";
}

// Each cell's centre in pixels, and the drawing's size.
export function layout(topology) {
  const n = topology.cells;
  let points;
  if (topology.coords) {
    points = topology.coords.map(([r, c]) => [c * STEP + STEP / 2, r * STEP + STEP / 2]);
  } else {
    const radius = Math.max(2 * STEP, (n * STEP) / (2 * Math.PI));
    points = [...Array(n).keys()].map((i) => {
      const a = (2 * Math.PI * i) / n - Math.PI / 2;
      return [radius + STEP / 2 + radius * Math.cos(a), radius + STEP / 2 + radius * Math.sin(a)];
    });
  }
  const width = Math.max(...points.map((p) => p[0])) + STEP / 2;
  const height = Math.max(...points.map((p) => p[1])) + STEP / 2;
  return { points, width, height };
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Draws `board` (the wire board: a letter per cell, X face-down, . empty) into `svg`.
// opts: { chinese, bagGame (X is then a cell waiting for its piece), deal (the deal's letters,
// to show face-down pieces), marks (cells of the last ply), names (each cell's name, for the
// cells' labels), and for a person's seat: onCell (click handler) and pick ({ can, selected,
// targets }: the cells a click acts on, the piece chosen to move, and where it may go) }.
//
// Where a click acts, a cell is a button to the keyboard too (Tab, then Enter or Space), and
// says what is on it. Where a chosen piece may go is marked by shape, not hue alone: a dot on
// an empty cell, a ring around a piece it would capture.
export function drawBoard(svg, topology, lay, board, opts = {}) {
  // The cell with the keyboard's focus keeps it across the redraw (a piece chosen by Enter,
  // then where it goes).
  const focused = svg.contains(document.activeElement) ? document.activeElement.closest("g[data-cell]") : null;
  const focusCell = focused ? focused.dataset.cell : null;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${lay.width} ${lay.height}`);
  svg.setAttribute("width", lay.width);
  svg.setAttribute("height", lay.height);
  // A group, not an image: on a person's turn its cells are buttons.
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "the board");
  svg.classList.add("board");
  for (const [a, b] of topology.links) {
    const [x1, y1] = lay.points[a];
    const [x2, y2] = lay.points[b];
    el("line", { x1, y1, x2, y2, class: "link" }, svg);
  }
  const marks = new Set(opts.marks || []);
  const pick = opts.pick || {};
  const names = opts.names || [];
  for (let cell = 0; cell < topology.cells; cell++) {
    const [x, y] = lay.points[cell];
    const letter = board[cell];
    const g = el("g", { "data-cell": cell, "data-letter": letter }, svg);
    const can = pick.can && pick.can.has(cell);
    const target = pick.targets && pick.targets.has(cell);
    el("rect", {
      x: x - STEP / 2 + 3, y: y - STEP / 2 + 3, width: STEP - 6, height: STEP - 6, rx: 6,
      class: "slot" + (marks.has(cell) ? " last" : "") + (can ? " can" : "") +
        (pick.selected === cell ? " selected" : "") + (target ? " target" : ""),
    }, g);
    let what = "empty";
    if (letter === "X" && opts.bagGame) {
      // A bag game's cell still waiting for its piece (nothing is face-down in a bag game).
      el("circle", { cx: x, cy: y, r: R, class: "piece open" }, g);
    } else if (letter === "X") {
      const dealt = opts.deal && opts.deal[cell] !== "." ? opts.deal[cell] : null;
      el("circle", { cx: x, cy: y, r: R, class: "piece " + (dealt ? "dealt" : "down") }, g);
      what = "face-down piece";
      if (dealt) {
        const t = el("text", { x, y, class: "dealt " + (isRed(dealt) ? "red" : "black") }, g);
        t.textContent = pieceLabel(dealt, opts.chinese);
      }
    } else if (letter !== ".") {
      el("circle", { cx: x, cy: y, r: R, class: "piece up " + (isRed(letter) ? "red" : "black") }, g);
      const t = el("text", { x, y, class: isRed(letter) ? "red" : "black" }, g);
      t.textContent = pieceLabel(letter, opts.chinese);
      what = pieceName(letter);
    }
    // The cell's name in its corner, over the piece's edge.
    el("text", { x: x - STEP / 2 + 9, y: y - STEP / 2 + 10, class: "num" }, g).textContent = names[cell] ?? cell;
    if (target) {
      // Where the chosen piece may go: a ring around a capture, a dot on an empty cell.
      el("circle", letter === "." ? { cx: x, cy: y, r: 7, class: "goes dot" } : { cx: x, cy: y, r: R + 2, class: "goes ring" }, g);
    }
    if (opts.onCell) {
      g.addEventListener("click", () => opts.onCell(cell));
      if (can || target) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", `${names[cell] ?? cell}: ${what}${target ? ", move here" : ""}`);
        g.addEventListener("keydown", (e) => {
          if (e.key !== "Enter" && e.key !== " ") return;
          e.preventDefault();
          opts.onCell(cell);
        });
      }
    }
  }
  if (focusCell !== null) {
    const again = svg.querySelector(`g[data-cell="${focusCell}"][tabindex]`) || svg.querySelector("g[tabindex]");
    if (again) again.focus();
  }
}

// A piece's name in English, for screen readers and titles: "red cannon".
const NAMES = { K: "king", G: "guard", B: "elephant", R: "chariot", N: "horse", C: "cannon", P: "pawn" };
export function pieceName(letter) {
  return `${isRed(letter) ? "red" : "black"} ${NAMES[letter.toUpperCase()] || letter}`;
}

// A small picture of a board for the lobby: the cells at their places, a dot per piece
// (face-down pieces brown, red and black ones in their colours). Returns an <svg>.
export function thumbnail(lay, board) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${lay.width} ${lay.height}`);
  svg.setAttribute("class", "thumb");
  svg.setAttribute("aria-hidden", "true");
  lay.points.forEach(([x, y], cell) => {
    const l = board[cell];
    if (l === undefined || l === ".") el("rect", { x: x - 4, y: y - 4, width: 8, height: 8, class: "thumb-empty" }, svg);
    else el("circle", { cx: x, cy: y, r: R, class: l === "X" ? "thumb-down" : isRed(l) ? "thumb-red" : "thumb-black" }, svg);
  });
  return svg;
}

// The cells an action names: `(rev 3)` -> [3], `(mov 4 5)` -> [4, 5], `(put K 7)` -> [7].
export function actionCells(action) {
  return (action.match(/\d+/g) || []).map(Number);
}

// A mobility curve: one line per player, total legal actions at every position up to `upto`;
// `classes` colour each player's line (style.css's mark-stroke-*: the page's policy allows no
// inline style).
export function drawCurve(svg, positions, upto, classes) {
  svg.replaceChildren();
  const w = 600, h = 140, pad = 4;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const total = (c) => c.moves + c.jumps + c.reveals + (c.bags || 0) + (c.puts || 0);
  const players = positions[0].mobility.length;
  const max = Math.max(1, ...positions.flatMap((p) => p.mobility.map(total)));
  const n = Math.max(2, positions.length);
  for (let p = 0; p < players; p++) {
    const pts = positions.slice(0, upto + 1).map((pos, i) =>
      `${pad + ((w - 2 * pad) * i) / (n - 1)},${h - pad - ((h - 2 * pad) * total(pos.mobility[p])) / max}`);
    el("polyline", { points: pts.join(" "), class: classes[p], "data-player": p + 1 }, svg);
  }
}
