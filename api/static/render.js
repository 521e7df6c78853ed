// Drawing the public state (engine/view.py's public_state) into the page. Every card drawn
// here comes from the state: the trick, the finished tricks, and the hand record once the
// hand has ended. Nothing else is a card.

import { callText, cardElement, label, suitName, suitSymbol } from "./cards.js";
import { gameTitle } from "./games.js";
import { seatLong, seatName, seatPosition, teamName } from "./seats.js";

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function render(state) {
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
  renderTricks(state);
  renderViolations(state);
  renderResult(state);
  renderRecord(state);
  renderHistory(state);
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

function renderTable(state) {
  const felt = $("table");
  felt.replaceChildren();
  const n = players(state);
  felt.dataset.players = n;
  const hand = state.hand;
  if (!state.game) {
    felt.append(el("p", "empty", "No match yet: open Setup to start one."));
    return;
  }
  for (let seat = 0; seat < n; seat++) {
    const pos = seatPosition(seat, n, 38);
    const box = el("div", "seat");
    box.dataset.seat = seat;
    box.style.left = `${pos.x}%`;
    box.style.top = `${pos.y}%`;
    const name = el("div", "seat-name", seatName(seat, n));
    box.append(name);
    if (n === 4) box.append(el("div", "seat-number", `seat ${seat}`));
    if (hand) {
      const inPlay = hand.seats.includes(seat);
      if (!inPlay) box.classList.add("out");
      if (hand.to_act === seat) box.classList.add("to-act");
      if (hand.declarer === seat) box.classList.add("declarer");
      const tags = [];
      if (hand.dealer === seat) tags.push("dealer");
      if (hand.declarer === seat) tags.push("declarer");
      if (hand.to_act === seat) tags.push("to play");
      if (tags.length) box.append(el("div", "tags", tags.join(" · ")));
      const facts = inPlay ? `${hand.cards_held[seat]} cards · ${hand.tricks_won[seat] ?? 0} tricks` : "sits out";
      box.append(el("div", "facts", inPlay && hand.tricks_won.length !== n ? `${hand.cards_held[seat]} cards` : facts));
    }
    felt.append(box);
  }
  if (hand) {
    // Each card of the trick in progress lies in front of the seat that played it.
    for (const { seat, card } of hand.trick) {
      const pos = seatPosition(seat, n, 20);
      const c = cardElement(card, state.game, "in-trick");
      c.dataset.seat = seat;
      c.style.left = `${pos.x}%`;
      c.style.top = `${pos.y}%`;
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
}

function phaseText(state) {
  const hand = state.hand;
  const n = players(state);
  const who = hand.to_act !== null ? seatName(hand.to_act, n) : "";
  switch (hand.phase) {
    case "auction":
      return `Auction: ${who} to call`;
    case "declare":
      return `${who} names trumps`;
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
  const n = players(state);
  const lines = [];
  lines.push(["Dealer", seatName(hand.dealer, n)]);
  if (hand.contract) lines.push(["Contract", callText(hand.contract)]);
  if (hand.declarer !== null) lines.push(["Declarer", seatLong(hand.declarer, n)]);
  if (hand.trump) lines.push(["Trumps", `${suitSymbol(hand.trump)} ${suitName(hand.trump)}`]);
  if (hand.direction) lines.push(["Direction", hand.direction]);
  for (const a of hand.declarer_actions) {
    if (a.type === "discard") lines.push(["Laid away", `${a.count} cards by ${seatName(a.seat, n)}`]);
    if (a.type === "joker-swap") {
      lines.push(["Joker swap", a.took_card ? `${seatName(a.seat, n)} gave up ${label(a.joker)}` : "declined"]);
    }
  }
  const dl = el("dl", "facts-list");
  for (const [k, v] of lines) {
    dl.append(el("dt", "", k), el("dd", k === "Trumps" && /[HD]/.test(hand.trump) ? "red" : "", v));
  }
  box.append(dl);
}

function renderAuction(state) {
  const list = $("auction");
  list.replaceChildren();
  const n = players(state);
  for (const { seat, call } of state.hand?.auction ?? []) {
    const item = el("li");
    item.append(el("span", "who", seatName(seat, n)), el("span", "call", callText(call)));
    list.append(item);
  }
  if (!list.children.length) list.append(el("li", "muted", "no calls yet"));
}

function sides(state, values) {
  const n = players(state);
  // Two numbers are the two teams (even seats, odd seats); one per seat otherwise (Nap).
  return values.map((v, i) => [values.length === n ? seatName(i, n) : teamName(i, n), v]);
}

function renderScore(state) {
  const box = $("score");
  box.replaceChildren();
  const m = state.match;
  if (!m) return;
  const table = el("table", "scores");
  const head = el("tr");
  head.append(el("th", "", ""));
  const rows = [];
  const hand = state.hand;
  if (hand?.tricks_won?.length) rows.push(["Tricks", hand.tricks_won]);
  if (hand?.points) rows.push(["Points", hand.points]);
  if (m.horses) rows.push(["Horses against", m.horses]);
  if (m.chips) rows.push(["Chips", m.chips]);
  else rows.push([state.game === "nap" ? "Balance" : "Score", m.score]);
  const width = Math.max(...rows.map(([, v]) => v.length));
  for (const [name] of sides(state, rows.find(([, v]) => v.length === width)[1])) head.append(el("th", "", name));
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
  const n = players(state);
  return state.match.score.length === n ? seatName(w, n) : teamName(w, n);
}

function renderTricks(state) {
  const box = $("tricks");
  box.replaceChildren();
  const n = players(state);
  const tricks = state.hand?.tricks ?? [];
  tricks.forEach((trick, i) => {
    const row = el("div", "trick-row");
    row.append(el("span", "trick-number", `${i + 1}`));
    for (const { seat, card } of trick.cards) {
      const cell = el("span", "played");
      cell.append(el("span", "who", seatName(seat, n)), cardElement(card, state.game, "small"));
      if (trick.winner === seat) cell.classList.add("won");
      row.append(cell);
    }
    row.append(el("span", "winner", trick.winner !== null ? `won by ${seatName(trick.winner, n)}` : ""));
    box.append(row);
  });
  if (!tricks.length) box.append(el("p", "muted", "none yet"));
}

function renderViolations(state) {
  const list = $("violations");
  list.replaceChildren();
  const violations = state.hand?.violations ?? [];
  $("violations-panel").hidden = violations.length === 0;
  for (const v of violations) list.append(el("li", "", v.message));
}

function renderResult(state) {
  const box = $("result");
  const hand = state.hand;
  box.hidden = !(hand && hand.phase === "over");
  box.replaceChildren();
  if (box.hidden) return;
  box.append(el("h2", "", `Hand ${hand.number}: ${hand.result ?? "over"}`));
  if (hand.score) {
    const parts = sides(state, hand.score).map(([who, v]) => `${who} ${v > 0 ? "+" : ""}${v}`);
    box.append(el("p", "hand-score", parts.join(" · ")));
  }
}

function renderRecord(state) {
  const record = state.hand?.record;
  const panel = $("record-panel");
  panel.hidden = !record;
  const box = $("record");
  box.replaceChildren();
  if (!record) return;
  const n = players(state);
  record.hands.forEach((cards, seat) => {
    const row = el("div", "record-row");
    row.append(el("span", "who", seatName(seat, n)));
    for (const c of cards) row.append(cardElement(c, state.game, "small"));
    box.append(row);
  });
  if (record.rest.length) {
    const row = el("div", "record-row");
    row.append(el("span", "who", "Rest"));
    for (const c of record.rest) row.append(cardElement(c, state.game, "small"));
    box.append(row);
  }
}

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
  const n = players(state);
  hands.forEach((h, i) => {
    const tr = el("tr");
    const score = h.score ? sides(state, h.score).map(([who, v]) => `${who} ${v}`).join(", ") : "—";
    for (const v of [i + 1, seatName(h.dealer, n), h.contract ? callText(h.contract) : "—",
      h.declarer !== null ? seatName(h.declarer, n) : "—", h.result ?? "—", score]) {
      tr.append(el("td", "", String(v)));
    }
    table.append(tr);
  });
  box.append(table);
}

export function renderMatches(matches) {
  const box = $("matches");
  box.replaceChildren();
  const list = el("ul", "matches");
  for (const m of matches.slice().reverse()) {
    const item = el("li");
    const link = el("a", "", `Match ${m.id}: ${gameTitle(m.game)}, ${m.players} players, ${m.events} ${m.events === 1 ? "event" : "events"}`);
    link.href = `/api/matches/${m.id}/log`;
    link.target = "_blank";
    item.append(link, el("span", "muted", ` ${m.created.slice(0, 16).replace("T", " ")}${m.current ? " · at the table" : ""}`));
    list.append(item);
  }
  if (!matches.length) list.append(el("li", "muted", "no matches yet"));
  box.append(list);
}

/** The alert banner: a violation's message in words, as loud as the buzzer. */
export function showAlert(text) {
  const box = $("alert");
  box.hidden = !text;
  box.textContent = text ?? "";
}
