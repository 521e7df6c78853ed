// Cards drawn from their codes ("TH", "9S", "BJ"). Only codes the server sent reach here: the
// page never invents a card. How a rank is written (the ten as "10", Fifty-Six's sheet letters
// when the table chose them) comes with the state (card_faces, engine/words.py): the page does
// not decide it.

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

let faces = { ranks: { T: "10" }, jokers: { BJ: "big joker", LJ: "little joker" } };

/** The state's card_faces: how this table writes ranks and names the jokers. */
export function useFaces(cardFaces) {
  if (cardFaces) faces = cardFaces;
}

export function suitSymbol(letter) {
  return SUITS[letter] ?? letter;
}

export function suitName(letter) {
  return SUIT_NAMES[letter] ?? letter;
}

export function rankFace(rank) {
  return faces.ranks[rank] ?? rank;
}

/** The card's face as text: "10♥", "P♠" with the sheet letters, "big joker". */
export function label(code) {
  if (faces.jokers[code]) return faces.jokers[code];
  return rankFace(code[0]) + suitSymbol(code[1]);
}

/** A card as an element: rank above, suit below, red or black; data-card keeps the code. */
export function cardElement(code, extra = "") {
  const el = document.createElement("span");
  el.className = `card ${extra}`.trim();
  el.dataset.card = code;
  const rank = document.createElement("span");
  rank.className = "rank";
  const suit = document.createElement("span");
  suit.className = "suit";
  if (faces.jokers[code]) {
    // A joker has no suit: a star, and its size written out ("big", "little") under it.
    el.classList.add("joker", code === "BJ" ? "red" : "black");
    rank.textContent = "★";
    suit.textContent = faces.jokers[code].split(" ")[0];
  } else {
    el.classList.add(code[1] === "H" || code[1] === "D" ? "red" : "black");
    rank.textContent = rankFace(code[0]);
    suit.textContent = suitSymbol(code[1]);
  }
  el.append(rank, suit);
  el.setAttribute("aria-label", label(code));
  return el;
}
