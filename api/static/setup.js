// The setup screen: the control token, the table's seat names and card letters (kept by the
// server for every screen: POST /api/seating), and starting a match. It opens only when asked:
// a display (a TV, a device without the token) never shows it by itself.

import { act, getToken, setToken } from "./api.js";
import { GAMES } from "./games.js";

const $ = (id) => document.getElementById(id);
const MOST_SEATS = Math.max(...Object.values(GAMES).flatMap((g) => g.seats));

export function initSetup({ onStarted, onToken, table }) {
  const dialog = $("setup");
  const token = $("token");
  const game = $("game");
  const players = $("players");

  for (const [name, g] of Object.entries(GAMES)) game.append(new Option(g.title, name));
  game.addEventListener("change", () => {
    fillGame(game.value);
    fillSeats();
  });
  players.addEventListener("change", fillSeats);
  fillGame(game.value);

  token.addEventListener("change", () => {
    setToken(token.value);
    onToken();
  });

  $("open-setup").addEventListener("click", open);

  $("start").addEventListener("click", async () => {
    setToken(token.value);
    const body = { game: game.value, players: Number(players.value), options: chosenOptions() };
    try {
      const answer = await act("/api/matches", body);
      say(`Match ${answer.match_id} started.`);
      dialog.close();
      onStarted(answer);
    } catch (error) {
      say(error.message);
    }
  });

  $("save-seating").addEventListener("click", async () => {
    setToken(token.value);
    const names = [...$("seat-names").querySelectorAll("input")].map((input) => input.value);
    while (names.length && !names[names.length - 1].trim()) names.pop();
    try {
      await act("/api/seating", { names, letters: $("letters").checked });
      say("The table's names are saved: every screen shows them.");
    } catch (error) {
      say(error.message);
    }
  });

  function say(text) {
    $("setup-message").textContent = text;
  }

  function open() {
    token.value = getToken();
    onToken();
    const state = table();
    $("letters").checked = Boolean(state?.seating?.letters);
    if (state?.game && GAMES[state.game]) {
      game.value = state.game;
      fillGame(state.game);
      players.value = String(state.players);
    }
    $("seat-names").replaceChildren(); // filled afresh from what the table keeps
    fillSeats();
    say("");
    dialog.showModal();
  }

  /** One name field per seat of the chosen player count, filled with the names the table keeps. */
  function fillSeats() {
    const state = table();
    const chosen = state?.seating?.names ?? [];
    const count = Number(players.value) || MOST_SEATS;
    const shown = state?.players === count ? (state?.seat_names?.names ?? []) : [];
    const box = $("seat-names");
    const typed = [...box.querySelectorAll("input")].map((input) => input.value);
    box.replaceChildren();
    for (let seat = 0; seat < count; seat++) {
      const label = document.createElement("label");
      label.textContent = `Seat ${seat} `;
      const input = document.createElement("input");
      input.maxLength = 16;
      input.dataset.seat = String(seat);
      input.value = typed[seat] ?? chosen[seat] ?? "";
      input.placeholder = shown[seat] && !chosen[seat] ? shown[seat] : "its compass point";
      label.append(input);
      box.append(label);
    }
  }

  function fillGame(name) {
    const g = GAMES[name];
    players.replaceChildren(...g.seats.map((n) => new Option(String(n), String(n))));
    const box = $("options");
    box.replaceChildren();
    for (const [option, values] of g.options) {
      const label = document.createElement("label");
      label.textContent = `${option} `;
      let input;
      if (Array.isArray(values)) {
        input = document.createElement("select");
        for (const v of values) input.append(new Option(String(v), JSON.stringify(v)));
      } else {
        input = document.createElement("input");
        input.type = "number";
        input.value = String(values);
        input.dataset.default = String(values);
      }
      input.dataset.option = option;
      label.append(input);
      box.append(label);
    }
  }

  // Only options changed from their defaults are sent: the server fills in the rest.
  function chosenOptions() {
    const out = {};
    for (const input of $("options").querySelectorAll("[data-option]")) {
      if (input.tagName === "SELECT") {
        if (input.selectedIndex > 0) out[input.dataset.option] = JSON.parse(input.value);
      } else if (input.value !== input.dataset.default) {
        out[input.dataset.option] = Number(input.value);
      }
    }
    return out;
  }

  return { open };
}
