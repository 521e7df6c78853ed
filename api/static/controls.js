// Entering what happens at the table: calls, declarations, discards, joker swaps, a play the
// camera missed, corrections, undo, pause. Only the legal choices the server lists are offered
// (hand.legal); a play is "play" with no list, since a list of legal cards would show the hand.

import { act } from "./api.js";
import { label, rankFace, suitName, suitSymbol } from "./cards.js";
import { seatName } from "./seats.js";

const RANKS = {
  poley: "AKQJT987",
  "fifty-six": "J9ATKQ",
};
const ALL_RANKS = "AKQJT98765432";
// What the seat to act is asked, after its name.
const ASKS = {
  call: "to call",
  declare: "names trumps",
  discard: "lays away",
  "joker-swap": "swaps a joker or keeps it",
  play: "to play",
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(text, onClick, className = "") {
  const b = el("button", className, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

/** Draw the controls for this state; `say` reports an answer or a refusal in words. */
export function renderControls(state, say) {
  const box = document.getElementById("controls");
  box.replaceChildren();
  document.getElementById("controls-panel").hidden = !state.game;
  if (!state.game) return;
  const n = state.players;
  const hand = state.hand;
  const legal = hand?.legal;
  // A violation is said by the update that records it (live.js); a refusal only here.
  const send = (path, body) => act(path, body).catch((error) => say(error.message, true));

  if (!hand || hand.phase === "over") {
    const dealer = el("select");
    dealer.id = "dealer";
    dealer.append(new Option("next in turn", ""));
    for (let s = 0; s < n; s++) dealer.append(new Option(seatName(state, s), String(s)));
    const row = el("div", "row");
    row.append(el("label", "", "Dealer "), dealer);
    row.append(
      button("Deal", () => send("/api/deals", dealer.value === "" ? {} : { dealer: Number(dealer.value) })),
    );
    box.append(el("p", "muted", "The dealing machine deals (its progress shows above); without one, the cards are shuffled here."), row);
  }

  if (legal) {
    const who = legal.seat !== null ? seatName(state, legal.seat) : "the joker's holder";
    const asks = legal.type === "declare" && legal.declarations[0]?.direction ? "says high or low" : ASKS[legal.type];
    box.append(el("h3", "", `${who} ${asks ?? legal.type}`));
    const row = el("div", "choices");
    row.dataset.choices = legal.type;
    if (legal.type === "call") {
      legal.calls.forEach((call, i) => {
        const b = button(legal.words?.[i] ?? call, () => send("/api/calls", { seat: legal.seat, call }));
        b.dataset.call = call;
        row.append(b);
      });
    } else if (legal.type === "declare") {
      for (const { words, ...d } of legal.declarations) {
        row.append(button(words ?? d.trump ?? d.direction, () => send("/api/declare", { seat: legal.seat, ...d })));
      }
    } else if (legal.type === "discard") {
      // The declarer's cards are hidden from the page; whoever enters them types them.
      const input = el("input");
      input.placeholder = `${legal.count} cards, e.g. 2C 7D`;
      row.append(input, button("Lay away", () => send("/api/discard", { seat: legal.seat, cards: codes(input.value) })));
    } else if (legal.type === "joker-swap") {
      const input = el("input");
      input.placeholder = "kitty card taken";
      const seat = el("select");
      for (let s = 0; s < n; s++) seat.append(new Option(`holder: ${seatName(state, s)}`, String(s)));
      row.append(
        el("span", "", `${label(legal.joker)}:`),
        seat,
        input,
        button("Swap", () =>
          send("/api/joker-swap", { seat: Number(seat.value), joker: legal.joker, card: codes(input.value)[0] ?? null }),
        ),
        button("Declines", () => send("/api/joker-swap", { seat: Number(seat.value), joker: legal.joker, card: null })),
      );
    } else if (legal.type === "play") {
      row.append(
        el("span", "muted", "The camera enters plays; if it missed one:"),
        cardPicker(state.game, (card) => send("/api/plays", { seat: legal.seat, card }), "Play"),
      );
    }
    box.append(row);
  }

  if (hand && hand.phase === "play" && (hand.trick.length || hand.tricks.length)) {
    const fix = el("details", "correct");
    fix.append(el("summary", "", "That card was…"));
    fix.append(cardPicker(state.game, (card) => send("/api/correct", { card }), "Correct the last play"));
    box.append(fix);
  }

  const general = el("div", "row general");
  if (hand && hand.phase !== "over") general.append(button("Undo", () => send("/api/undo"), "undo"));
  general.append(
    state.paused
      ? button("Resume", () => send("/api/resume"))
      : button("Pause", () => send("/api/pause", { reason: "paused at the table" })),
  );
  box.append(general);
}

function codes(text) {
  return text
    .toUpperCase()
    .replace(/10/g, "T")
    .split(/[\s,]+/)
    .filter(Boolean);
}

/** Rank and suit buttons, then the action: enough to name any card of the game's pack. */
function cardPicker(game, onPick, verb) {
  const box = el("div", "picker");
  let rank = null;
  let suit = null;
  const go = button(verb, () => rank && suit && onPick(rank + suit));
  go.disabled = true;
  const ranks = el("div", "ranks");
  const suits = el("div", "suits");
  const pick = (group, value, setter) => (event) => {
    for (const b of group.children) b.classList.remove("chosen");
    event.currentTarget.classList.add("chosen");
    setter(value);
    go.disabled = !(rank && suit);
    go.textContent = rank && suit ? `${verb}: ${label(rank + suit)}` : verb;
  };
  for (const r of RANKS[game] ?? ALL_RANKS) ranks.append(button(rankFace(r), pick(ranks, r, (v) => (rank = v))));
  for (const s of "SHDC") {
    const b = button(suitSymbol(s), pick(suits, s, (v) => (suit = v)), s === "H" || s === "D" ? "red" : "black");
    b.setAttribute("aria-label", suitName(s));
    suits.append(b);
  }
  box.append(ranks, suits);
  if (game === "bid-whist") {
    // Jokers have no suit: one button names one directly.
    const jokers = el("div", "ranks");
    for (const j of ["BJ", "LJ"]) jokers.append(button(label(j), () => onPick(j)));
    box.append(jokers);
  }
  box.append(go);
  return box;
}
