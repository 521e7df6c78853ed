// The page's glue: the token, the live state, and drawing it. See docs/api.md for the API.

import { getToken, read, takeTokenFromUrl } from "./api.js";
import { useSheetLetters } from "./cards.js";
import { renderControls } from "./controls.js";
import { connect } from "./live.js";
import { render, renderMatches, showAlert } from "./render.js";
import { initSetup } from "./setup.js";

let state = null;
let readingClosed = false;

function draw() {
  if (!state) return;
  render(state);
  renderControls(state, say);
}

/** A refusal or violation from an action entered here, in words. */
function say(text, refused = false) {
  showAlert(text ? (refused ? `Refused: ${text}` : text) : null);
}

async function refreshMatches() {
  try {
    renderMatches(await read("/api/matches"));
  } catch {
    // the history is a convenience: the live table matters more
  }
}

function onState(next, seq) {
  const handChanged = state?.hand?.number !== next.hand?.number || state?.game !== next.game;
  state = next;
  document.body.dataset.seq = String(seq);
  if (handChanged || next.hand?.phase === "over") refreshMatches();
  draw();
}

function onViolation(violation) {
  // A violation stays on screen until the next event: the table has to see it.
  showAlert(violation ? violation.message : null);
}

function onLink(text, up) {
  const link = document.getElementById("link");
  link.textContent = text;
  link.classList.toggle("up", up);
}

takeTokenFromUrl();
const setup = initSetup({
  onStarted: () => refreshMatches(),
  onLetters: (on) => {
    useSheetLetters(on);
    draw();
  },
  onToken: () => showQr(),
});

async function showQr() {
  const box = document.getElementById("qr");
  box.replaceChildren();
  if (!getToken()) return;
  try {
    // The server draws the page's address with "#token=..." (segno); it needs the token.
    const answer = await fetch("/api/qr", { headers: { Authorization: `Bearer ${getToken()}` } });
    if (answer.ok) box.innerHTML = await answer.text();
  } catch {
    // no QR code: the token can still be typed
  }
}

try {
  await read("/api/table");
} catch {
  readingClosed = true; // the WebSocket then needs the token in its query
}
const live = connect({ onState, onViolation, onLink, tokenInQuery: () => readingClosed });
document.getElementById("token").addEventListener("change", () => live.reconnect());
refreshMatches();
if (!getToken()) setup.open();
