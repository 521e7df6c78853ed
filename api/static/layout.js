// Where things lie on the felt, in pixels, measured: each seat's label on the edge of the oval at
// its place around the table, each card of the trick between its seat's label and the middle.
// Nothing may cover anything else: a label that would overlap another one is made smaller, and
// so are the cards, until everything fits (six seats on a phone included).

import { seatAngle } from "./seats.js";

const MARGIN = 6; // px between a label and the felt's edge
const GAP = 6; // px between a label and its seat's card
const SMALLEST = 0.55; // the furthest a label or a card is shrunk

/** Place every `.seat` and `.in-trick` card of the felt; call again whenever the felt's size changes. */
export function layoutFelt(felt) {
  const players = Number(felt.dataset.players);
  const seats = [...felt.querySelectorAll(".seat")];
  if (!seats.length) return;
  for (let scale = 1; ; scale = Math.round((scale - 0.1) * 100) / 100) {
    felt.style.setProperty("--seat-scale", String(scale));
    felt.style.setProperty("--card-scale", String(scale));
    const boxes = placeSeats(felt, seats, players);
    const cards = placeCards(felt, boxes);
    if (scale <= SMALLEST || !anyOverlap([...boxes.values(), ...cards, ...centre(felt)])) return;
  }
}

function placeSeats(felt, seats, players) {
  const w = felt.clientWidth;
  const h = felt.clientHeight;
  const boxes = new Map();
  for (const el of seats) {
    const seat = Number(el.dataset.seat);
    const angle = seatAngle(seat, players);
    const bw = el.offsetWidth;
    const bh = el.offsetHeight;
    // On an ellipse inside the felt, so that every label stays whole on the felt.
    const a = Math.max(0, w / 2 - MARGIN - bw / 2);
    const b = Math.max(0, h / 2 - MARGIN - bh / 2);
    const x = w / 2 + a * Math.cos(angle);
    const y = h / 2 + b * Math.sin(angle);
    put(el, x, y);
    boxes.set(seat, { x, y, w: bw, h: bh });
  }
  return boxes;
}

function placeCards(felt, boxes) {
  const placed = [];
  for (const el of felt.querySelectorAll(".in-trick")) {
    const label = boxes.get(Number(el.dataset.seat));
    if (!label) continue;
    const cw = el.offsetWidth;
    const ch = el.offsetHeight;
    // From the label towards the middle of the felt, just far enough to clear the label.
    let dx = felt.clientWidth / 2 - label.x;
    let dy = felt.clientHeight / 2 - label.y;
    const length = Math.hypot(dx, dy) || 1;
    dx /= length;
    dy /= length;
    const clearX = Math.abs(dx) > 1e-6 ? (label.w / 2 + cw / 2 + GAP) / Math.abs(dx) : Infinity;
    const clearY = Math.abs(dy) > 1e-6 ? (label.h / 2 + ch / 2 + GAP) / Math.abs(dy) : Infinity;
    const step = Math.min(clearX, clearY, length);
    const x = label.x + dx * step;
    const y = label.y + dy * step;
    put(el, x, y);
    placed.push({ x, y, w: cw, h: ch });
  }
  return placed;
}

/** The words in the middle of the felt ("Auction: North to call"), as a box, when shown. */
function centre(felt) {
  const el = felt.querySelector(".centre");
  if (!el || !el.textContent) return [];
  return [{ x: felt.clientWidth / 2, y: felt.clientHeight / 2, w: el.offsetWidth, h: el.offsetHeight }];
}

function put(el, x, y) {
  el.style.left = `${Math.round(x)}px`;
  el.style.top = `${Math.round(y)}px`;
}

function anyOverlap(boxes) {
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const p = boxes[i];
      const q = boxes[j];
      if (Math.abs(p.x - q.x) < (p.w + q.w) / 2 && Math.abs(p.y - q.y) < (p.h + q.h) / 2) return true;
    }
  }
  return false;
}

/** Lay the felt out again whenever its size changes (a phone turned, a window resized). */
export function watchFelt(felt) {
  new ResizeObserver(() => layoutFelt(felt)).observe(felt);
}
