// Drawing the public state (engine/view.py's public_state) into the page. Every card drawn here
// comes from the state: the trick, the finished tricks, and the hand record once the hand has
// ended. Every name and call comes in words with the state too (seat_names, *_words, a
// violation's text): the page shows them as they are, so it says what the terminal says.

import { cardElement, useFaces } from "./cards.js";
import { gameTitle } from "./games.js";
import { layoutFelt } from "./layout.js";
import { seatName, seatShort, teamName } from "./seats.js";

const $ = (id) => document.getElementById(id);

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** "1 card", "5 cards". */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

export function render(state) {
  useFaces(state.card_faces);
  const hand = state.hand;
  $("title").textContent = state.game ? gameTitle(state.game) + (hand ? ` · hand ${hand.number}` : "") : "Croupier";
  $("standing").textContent = state.match?.over ? `Match over: ${winnerText(state)} won` : "";
  const paused = $("paused");
  const waits = (state.holds ?? []).map((h) => h.message);
  const pausedText = state.paused ? `Table paused: ${state.paused}` : waits.length ? `Table waiting: ${waits.join("; ")}` : "";
  paused.hidden = !pausedText;
  paused.textContent = pausedText;
  renderDevices(state);
  renderTable(state);
  renderContract(state);
  renderAuction(state);
  renderScore(state);
  renderNextRound(state);
  renderTricks(state);
  renderViolations(state);
  renderResult(state);
  renderRecord(state);
  renderHistory(state);
}

/** Who sits where in the club's next round, as the club said it (state.next_round; hidden without one). */
function renderNextRound(state) {
  const next = state.next_round;
  $("next-round-panel").hidden = !next;
  const box = $("next-round");
  box.replaceChildren();
  if (!next) return;
  box.append(el("p", "next-round-title", `Round ${next.round}`));
  const list = el("ul", "next-round-seats");
  for (const s of next.seats) list.append(el("li", "", `Seat ${s.seat + 1}: ${s.entrant} (side ${s.side + 1})`));
  box.append(list);
}

/** What the machine and the camera are doing, in words: dealing progress, a fault and its remedy,
 * a void deal naming the cards, a card the camera saw that the seat does not hold, "gather the trick". */
function renderDevices(state) {
  const box = $("devices");
  const lines = [];
  const dealer = state.devices?.dealer;
  if (dealer?.state === "dealing") lines.push(`Dealing: ${dealer.dealt} of ${dealer.total} cards`);
  else if (dealer && dealer.state !== "done") lines.push(`Dealing machine: ${dealer.message}`);
  const camera = state.devices?.camera;
  if (camera?.message) lines.push(`Camera: ${camera.message}`);
  const hand = state.hand;
  if (camera?.trick_on_mat && hand && hand.trick.length === 0 && hand.tricks.length > 0 && !hand.record) {
    lines.push("Gather the trick: the next lead waits until the mat is clear");
  }
  box.hidden = lines.length === 0;
  box.replaceChildren(...lines.map((line) => el("p", "", line)));
}

function players(state) {
  return state.players ?? 4;
}

// What the seat to act is doing, for its badge on the felt.
const TURN = { auction: "to call", declare: "to name trumps", discard: "to lay away", "joker-swap": "to answer" };

function turnTag(hand) {
  if (hand.phase === "play") return hand.trick.length === 0 ? "to lead" : "to play";
  return TURN[hand.phase] ?? "to act";
}

function renderTable(state) {
  const felt = $("table");
  felt.replaceChildren();
  const n = players(state);
  felt.dataset.players = n;
  const hand = state.hand;
  if (!state.game) {
    const setupHint = document.body.dataset.mode === "control" ? "No match yet: open Setup to start one." : "No match yet.";
    felt.append(el("p", "empty", setupHint));
    return;
  }
  for (let seat = 0; seat < n; seat++) felt.append(seatBox(state, seat));
  if (hand) {
    // Each card of the trick in progress lies in front of the seat that played it (layout.js).
    for (const { seat, card } of hand.trick) {
      const c = cardElement(card, "in-trick");
      c.dataset.seat = seat;
      felt.append(c);
    }
    const centre = el("div", "centre");
    if (hand.to_act === null && hand.phase === "joker-swap" && hand.legal?.joker) {
      centre.textContent = `The holder of the ${hand.legal.joker === "BJ" ? "big" : "little"} joker?`;
    } else if (hand.phase !== "play" || hand.trick.length === 0) {
      centre.textContent = phaseText(state);
    }
    felt.append(centre);
  }
  layoutFelt(felt);
}

function seatBox(state, seat) {
  const hand = state.hand;
  const box = el("div", "seat");
  box.dataset.seat = seat;
  box.append(el("div", "seat-name", seatName(state, seat)));
  if (!hand) return box;
  const inPlay = hand.seats.includes(seat);
  if (!inPlay) box.classList.add("out");
  if (hand.to_act === seat) box.classList.add("to-act");
  if (hand.declarer === seat) box.classList.add("declarer");
  const tags = [];
  if (hand.dealer === seat) tags.push("dealer");
  if (hand.declarer === seat) tags.push("declarer");
  if (hand.to_act === seat) tags.push(turnTag(hand));
  if (tags.length) box.append(el("div", "tags", tags.join(" · ")));
  let facts = "sits out";
  if (inPlay) {
    facts = count(hand.cards_held[seat], "card");
    // Tricks per seat where each plays for himself (Nap); partnerships count theirs in the score.
    if (hand.tricks_won.length === players(state)) facts += ` · ${count(hand.tricks_won[seat] ?? 0, "trick")}`;
  }
  box.append(el("div", "facts", facts));
  return box;
}

function phaseText(state) {
  const hand = state.hand;
  const who = hand.to_act !== null ? seatName(state, hand.to_act) : "";
  switch (hand.phase) {
    case "auction":
      return `Auction: ${who} to call`;
    case "declare":
      return `${who} names ${state.game === "bid-whist" && /no$/.test(hand.contract ?? "") ? "high or low" : "trumps"}`;
    case "discard":
      return `${who} lays away ${hand.legal?.count ?? ""} cards`;
    case "play":
      return `${who} to lead`;
    case "over":
      return "Hand over";
    default:
      return hand.phase;
  }
}

function renderContract(state) {
  const box = $("contract");
  box.replaceChildren();
  const hand = state.hand;
  if (!hand) {
    box.textContent = state.game ? "Waiting for the deal" : "—";
    return;
  }
  const lines = [["Dealer", seatName(state, hand.dealer)]];
  if (hand.contract) lines.push(["Contract", hand.contract_words ?? hand.contract]);
  if (hand.declarer !== null) lines.push(["Declarer", seatName(state, hand.declarer)]);
  if (hand.trump_words) lines.push(["Trumps", hand.trump_words]);
  const dl = el("dl", "facts-list");
  for (const [k, v] of lines) {
    dl.append(el("dt", "", k), el("dd", k === "Trumps" && /[HD]/.test(hand.trump) ? "red" : "", v));
  }
  box.append(dl);
  // What the declarer (or a joker's holder) did since, in words: "North laid away 6 cards".
  for (const a of hand.declarer_actions) {
    if (a.type !== "declare") box.append(el("p", "declarer-action", a.words));
  }
}

function renderAuction(state) {
  const list = $("auction");
  list.replaceChildren();
  for (const { seat, call, words } of state.hand?.auction ?? []) {
    const item = el("li");
    item.append(el("span", "who", seatName(state, seat)), " ", el("span", "call", words ?? call));
    list.append(item);
  }
  if (!list.children.length) list.append(el("li", "muted", "no calls yet"));
}

/** The score table's columns: one per seat where each plays for himself (Nap), else the two teams. */
function sides(state) {
  const byTeam = state.game !== "nap";
  const width = byTeam ? 2 : players(state);
  // One column per seat is narrow: a compass point goes by its initials there.
  return Array.from({ length: width }, (_, i) => (byTeam ? teamName(state, i) : seatShort(state, i)));
}

function renderScore(state) {
  const box = $("score");
  box.replaceChildren();
  const m = state.match;
  if (!m) return;
  const names = sides(state);
  const rows = [];
  const hand = state.hand;
  if (hand?.tricks_won?.length === names.length) rows.push(["Tricks", hand.tricks_won]);
  if (hand?.points?.length === names.length) rows.push(["Points", hand.points]);
  if (m.horses) rows.push(["Horses against", m.horses]);
  if (m.chips) rows.push(["Chips", m.chips]);
  else rows.push([state.game === "nap" ? "Balance" : "Score", m.score]);
  const table = el("table", names.length > 3 ? "scores many" : "scores");
  const head = el("tr");
  head.append(el("th", "", ""));
  for (const name of names) head.append(el("th", "side-name", name));
  table.append(head);
  for (const [name, values] of rows) {
    const tr = el("tr");
    tr.dataset.row = name.toLowerCase();
    tr.append(el("th", "", name));
    for (const v of values) tr.append(el("td", "", String(v)));
    table.append(tr);
  }
  box.append(table);
  if (m.pool !== undefined) box.append(el("p", "pool", `Pool: ${m.pool}`));
  if (m.over) box.append(el("p", "over", `Match over: ${winnerText(state)} won`));
}

function winnerText(state) {
  const w = state.match.winner;
  if (w === null || w === undefined) return "nobody";
  return state.game === "nap" ? seatName(state, w) : teamName(state, w);
}

function renderTricks(state) {
  const box = $("tricks");
  box.replaceChildren();
  const tricks = state.hand?.tricks ?? [];
  tricks.forEach((trick, i) => {
    const row = el("div", "trick-row");
    row.append(el("span", "trick-number", `${i + 1}`));
    for (const { seat, card } of trick.cards) {
      const cell = el("span", "played");
      cell.append(el("span", "who", seatShort(state, seat)), cardElement(card, "small"));
      if (trick.winner === seat) cell.classList.add("won");
      row.append(cell);
    }
    row.append(el("span", "winner", trick.winner !== null ? `won by ${seatName(state, trick.winner)}` : ""));
    box.append(row);
  });
  if (!tricks.length) box.append(el("p", "muted", "none yet"));
}

function renderViolations(state) {
  const list = $("violations");
  list.replaceChildren();
  const violations = state.hand?.violations ?? [];
  $("violations-panel").hidden = violations.length === 0;
  for (const v of violations) list.append(el("li", "", v.text ?? v.message));
}

function renderResult(state) {
  const box = $("result");
  const hand = state.hand;
  box.hidden = !(hand && hand.phase === "over");
  box.replaceChildren();
  if (box.hidden) return;
  const what = hand.contract_words ? `${hand.contract_words}, ${hand.result ?? "over"}` : (hand.result ?? "over");
  box.append(el("h2", "", `Hand ${hand.number}: ${what}`));
  if (hand.score) {
    const names = sides(state);
    const parts = hand.score.map((v, i) => `${names[i]} ${v > 0 ? "+" : ""}${v}`);
    box.append(el("p", "hand-score", parts.join(" · ")));
  }
}

function renderRecord(state) {
  const record = state.hand?.record;
  $("record-panel").hidden = !record;
  const box = $("record");
  box.replaceChildren();
  if (!record) return;
  record.hands.forEach((cards, seat) => {
    if (!cards.length) return; // a seat that sat out
    const row = el("div", "record-row");
    row.append(el("span", "who", seatName(state, seat)));
    const hand = el("span", "cards");
    for (const c of cards) hand.append(cardElement(c, "small"));
    row.append(hand);
    box.append(row);
  });
  if (record.rest.length) {
    const row = el("div", "record-row");
    row.append(el("span", "who", "Rest"));
    const rest = el("span", "cards");
    for (const c of record.rest) rest.append(cardElement(c, "small"));
    row.append(rest);
    box.append(row);
  }
}

/** The match's earlier hands, the latest first (a TV shows as many as fit). */
function renderHistory(state) {
  const box = $("history");
  box.replaceChildren();
  const hands = state.history ?? [];
  if (!hands.length) {
    box.append(el("p", "muted", "no earlier hands in this match"));
    return;
  }
  const table = el("table", "history");
  const head = el("tr");
  for (const h of ["Hand", "Dealer", "Contract", "Declarer", "Result", "Score"]) head.append(el("th", "", h));
  table.append(head);
  const names = sides(state);
  for (let i = hands.length - 1; i >= 0; i--) {
    const h = hands[i];
    const tr = el("tr");
    const score = h.score ? h.score.map((v, k) => `${names[k]} ${v}`).join(", ") : "—";
    const cells = [
      ["Hand", i + 1],
      ["Dealer", seatName(state, h.dealer)],
      ["Contract", h.contract_words ?? h.contract ?? "—"],
      ["Declarer", h.declarer !== null ? seatName(state, h.declarer) : "—"],
      ["Result", h.result ?? "—"],
      ["Score", score],
    ];
    for (const [name, v] of cells) {
      const td = el("td", "", String(v));
      td.dataset.label = name; // a phone shows each hand as a card of labelled lines
      tr.append(td);
    }
    table.append(tr);
  }
  box.append(table);
}

export function renderMatches(matches) {
  const box = $("matches");
  box.replaceChildren();
  const list = el("ul", "matches");
  for (const m of matches.slice().reverse()) {
    const item = el("li");
    const link = el("a", "", `Match ${m.id}: ${gameTitle(m.game)}, ${m.players} players, ${count(m.events, "event")}`);
    link.href = `/api/matches/${m.id}/log`;
    link.target = "_blank";
    item.append(link, el("span", "muted", ` ${m.created.slice(0, 16).replace("T", " ")}${m.current ? " · at the table" : ""}`));
    list.append(item);
  }
  if (!matches.length) list.append(el("li", "muted", "no matches yet"));
  box.append(list);
}

/** The alert banner: a violation's sentence or a refusal, as loud as the buzzer. */
export function showAlert(text) {
  const box = $("alert");
  box.hidden = !text;
  box.textContent = text ?? "";
}
