// The setup screen: the control token, display options, and starting a match.

import { act, getToken, setToken } from "./api.js";
import { GAMES } from "./games.js";

const $ = (id) => document.getElementById(id);

export function initSetup({ onStarted, onLetters, onToken }) {
  const dialog = $("setup");
  const token = $("token");
  const game = $("game");
  const players = $("players");
  const letters = $("letters");

  for (const [name, g] of Object.entries(GAMES)) game.append(new Option(g.title, name));
  game.addEventListener("change", () => fillGame(game.value));
  fillGame(game.value);

  letters.checked = localStorage.getItem("croupier.letters") === "1";
  onLetters(letters.checked);
  letters.addEventListener("change", () => {
    localStorage.setItem("croupier.letters", letters.checked ? "1" : "0");
    onLetters(letters.checked);
  });

  token.addEventListener("change", () => {
    setToken(token.value);
    onToken();
  });

  $("open-setup").addEventListener("click", () => {
    token.value = getToken();
    onToken();
    dialog.showModal();
  });

  $("start").addEventListener("click", async () => {
    setToken(token.value);
    const body = { game: game.value, players: Number(players.value), options: chosenOptions() };
    try {
      const answer = await act("/api/matches", body);
      $("setup-message").textContent = `Match ${answer.match_id} started.`;
      dialog.close();
      onStarted(answer);
    } catch (error) {
      $("setup-message").textContent = error.message;
    }
  });

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

  return {
    open() {
      token.value = getToken();
      onToken();
      dialog.showModal();
    },
  };
}
