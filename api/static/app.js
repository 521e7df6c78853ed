// The page's glue: its mode, the token, the live state, and drawing it. See docs/live-table.md.
//
// Two modes. "control": this device has the control token and enters calls (the Setup button
// gives the token). "display": a TV or any device without the token; it shows the table, fills
// the screen, and never asks for anything. /#display forces it even where the token is kept.

import { getToken, read, takeTokenFromUrl } from "./api.js";
import { renderControls } from "./controls.js";
import { watchFelt } from "./layout.js";
import { connect } from "./live.js";
import { render, renderMatches, showAlert } from "./render.js";
import { initSetup } from "./setup.js";

let state = null;
let readingClosed = false;
const forcedDisplay = /(?:^#|&)display(?:&|$)/.test(location.hash);

function mode() {
  return forcedDisplay || !getToken() ? "display" : "control";
}

function applyMode() {
  document.body.dataset.mode = mode();
  document.getElementById("open-setup").hidden = forcedDisplay;
}

function draw() {
  if (!state) return;
  render(state);
  if (mode() === "control") renderControls(state, say);
  else document.getElementById("controls-panel").hidden = true;
}

/** A refusal of an action entered here, in words: it stays until the table goes on. */
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

/** A violation stays on screen, as a refusal does, until the table goes on: until an event of
 * the match (not a device's status) is recorded without one. */
function onUpdate(message) {
  if (message.violation) showAlert(message.violation.text ?? message.violation.message);
  else if (message.event?.type !== "status") showAlert(null);
}

function onLink(link, text) {
  document.body.dataset.link = link;
  const badge = document.getElementById("link");
  badge.textContent = text;
  badge.classList.toggle("up", link === "live");
  document.getElementById("offline").hidden = link !== "lost";
}

takeTokenFromUrl();
applyMode();
watchFelt(document.getElementById("table"));
initSetup({
  onStarted: () => refreshMatches(),
  onToken: () => {
    applyMode();
    draw();
    showQr();
  },
  table: () => state,
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
const live = connect({ onState, onUpdate, onLink, tokenInQuery: () => readingClosed });
document.getElementById("token").addEventListener("change", () => live.reconnect());
refreshMatches();
