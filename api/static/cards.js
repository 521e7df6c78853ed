// Cards drawn from their codes ("TH", "9S", "BJ"). Only codes the server sent reach here:
// the page never invents a card.

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANKS = { T: "10" };
// Fifty-Six's rule sheet names J 9 A 10 K Q by the letters P M S D N R.
const SHEET = { J: "P", 9: "M", A: "S", T: "D", K: "N", Q: "R" };

let sheetLetters = false;

export function useSheetLetters(on) {
  sheetLetters = on;
}

export function suitSymbol(letter) {
  return SUITS[letter] ?? letter;
}

export function suitName(letter) {
  return SUIT_NAMES[letter] ?? letter;
}

/** The card's face as text: "10♥", "P♠" with the sheet letters, "Big joker". */
export function label(code, game) {
  if (code === "BJ") return "Big joker";
  if (code === "LJ") return "Little joker";
  const rank = code[0];
  const shown = sheetLetters && game === "fifty-six" && SHEET[rank] ? SHEET[rank] : (RANKS[rank] ?? rank);
  return shown + suitSymbol(code[1]);
}

/** A card as an element: rank above, suit below, red or black; data-card keeps the code. */
export function cardElement(code, game, extra = "") {
  const el = document.createElement("span");
  el.className = `card ${extra}`.trim();
  el.dataset.card = code;
  if (code === "BJ" || code === "LJ") {
    el.classList.add("joker", code === "BJ" ? "red" : "black");
    el.innerHTML = `<span class="rank">★</span><span class="suit">${code === "BJ" ? "big" : "little"}</span>`;
  } else {
    const suit = code[1];
    el.classList.add(suit === "H" || suit === "D" ? "red" : "black");
    const text = label(code, game);
    const rank = text.slice(0, -1);
    el.innerHTML = `<span class="rank">${rank}</span><span class="suit">${suitSymbol(suit)}</span>`;
  }
  el.setAttribute("aria-label", label(code, game));
  return el;
}

/** Replace card codes in a contract or call ("44Hx", "5H") with suit symbols for reading. */
export function callText(text) {
  const m = /^(\d+)([SHDC])(x{0,2})$/.exec(text);
  if (m) return `${m[1]}${suitSymbol(m[2])}${m[3] ? " " + (m[3] === "x" ? "doubled" : "redoubled") : ""}`;
  const nt = /^(\d+)NT(x{0,2})$/.exec(text);
  if (nt) return `${nt[1]} no trump${nt[2] ? (nt[2] === "x" ? " doubled" : " redoubled") : ""}`;
  return text;
}
