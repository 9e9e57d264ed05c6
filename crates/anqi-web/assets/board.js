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
// to show face-down pieces), marks (cells of the last ply), and for a person's seat: onCell
// (click handler) and pick ({ can, selected, targets }: the cells a click acts on, the piece
// chosen to move, and where it may go) }.
export function drawBoard(svg, topology, lay, board, opts = {}) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${lay.width} ${lay.height}`);
  svg.setAttribute("width", lay.width);
  svg.setAttribute("height", lay.height);
  svg.classList.add("board");
  for (const [a, b] of topology.links) {
    const [x1, y1] = lay.points[a];
    const [x2, y2] = lay.points[b];
    el("line", { x1, y1, x2, y2, class: "link" }, svg);
  }
  const marks = new Set(opts.marks || []);
  for (let cell = 0; cell < topology.cells; cell++) {
    const [x, y] = lay.points[cell];
    const letter = board[cell];
    const g = el("g", { "data-cell": cell, "data-letter": letter }, svg);
    const pick = opts.pick || {};
    el("rect", {
      x: x - STEP / 2 + 3, y: y - STEP / 2 + 3, width: STEP - 6, height: STEP - 6, rx: 6,
      class: "slot" + (marks.has(cell) ? " last" : "") + (pick.can && pick.can.has(cell) ? " can" : "") +
        (pick.selected === cell ? " selected" : "") + (pick.targets && pick.targets.has(cell) ? " target" : ""),
    }, g);
    el("text", { x: x - STEP / 2 + 9, y: y - STEP / 2 + 10, class: "num" }, g).textContent = cell;
    if (letter === "X" && opts.bagGame) {
      // A bag game's cell still waiting for its piece (nothing is face-down in a bag game).
      el("circle", { cx: x, cy: y, r: R, class: "piece open" }, g);
    } else if (letter === "X") {
      const dealt = opts.deal && opts.deal[cell] !== "." ? opts.deal[cell] : null;
      el("circle", { cx: x, cy: y, r: R, class: "piece " + (dealt ? "dealt" : "down") }, g);
      if (dealt) {
        const t = el("text", { x, y, class: "dealt " + (isRed(dealt) ? "red" : "black") }, g);
        t.textContent = pieceLabel(dealt, opts.chinese);
      }
    } else if (letter !== ".") {
      el("circle", { cx: x, cy: y, r: R, class: "piece up" }, g);
      const t = el("text", { x, y, class: isRed(letter) ? "red" : "black" }, g);
      t.textContent = pieceLabel(letter, opts.chinese);
    }
    if (opts.onCell) g.addEventListener("click", () => opts.onCell(cell));
  }
}

// The cells an action names: `(rev 3)` -> [3], `(mov 4 5)` -> [4, 5], `(put K 7)` -> [7].
export function actionCells(action) {
  return (action.match(/\d+/g) || []).map(Number);
}

// A mobility curve: one line per player, total legal actions at every position up to `upto`.
export function drawCurve(svg, positions, upto, colours) {
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
    el("polyline", { points: pts.join(" "), stroke: colours[p % colours.length], "data-player": p + 1 }, svg);
  }
}
