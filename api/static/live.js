// The WebSocket /ws: a snapshot, then updates numbered by seq. Updates are applied in seq
// order; a gap asks for a resync (a fresh snapshot); a dropped connection reconnects with a
// growing delay. Every message carries the whole public state, so the page shows exactly
// what the server sent and nothing else.
//
// A server that stops answering without closing the connection (its machine lost power, the
// network went) would leave the page looking live: so when the table has been quiet for a while
// the page asks for a snapshot ({"type": "resync"}), and a connection that answers nothing in
// time is given up as lost, and reconnected.

import { getToken } from "./api.js";

// How long the table may be quiet before the page checks it is still there, and how long that
// check may take. A test may shorten both (window.CROUPIER_HEARTBEAT_MS).
const QUIET_MS = window.CROUPIER_HEARTBEAT_MS ?? 15000;
const ANSWER_MS = window.CROUPIER_HEARTBEAT_MS ?? 10000;

/** onLink(state, text): state is "connecting", "live" or "lost". */
export function connect({ onState, onUpdate, onLink, tokenInQuery }) {
  let seq = null;
  let waiting = false; // a resync was asked for: updates wait for its snapshot
  let socket = null;
  let delay = 500;
  let timer = null;
  let everLive = false;
  let link = "connecting";
  let heard = 0; // when the server last said anything
  let asked = 0; // when the page last asked whether it is there (0: not waiting for an answer)
  let watchdog = null;

  function url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // Browsers cannot set headers on a WebSocket: when reading is closed the token goes in
    // the query (docs/api.md); otherwise it stays out of URLs altogether.
    const query = tokenInQuery() && getToken() ? `?token=${encodeURIComponent(getToken())}` : "";
    return `${scheme}://${location.host}/ws${query}`;
  }

  function tell(state, text) {
    link = state;
    onLink(state, text);
  }

  function open() {
    timer = null;
    if (link === "connecting") tell("connecting", "connecting…");
    const ws = new WebSocket(url());
    socket = ws;
    ws.onopen = () => {
      delay = 500;
      heard = Date.now();
      asked = 0;
    };
    ws.onmessage = (event) => {
      heard = Date.now();
      asked = 0;
      if (link !== "live") tell("live", "live");
      everLive = true;
      receive(JSON.parse(event.data));
    };
    ws.onclose = () => lost(ws);
  }

  function lost(ws) {
    if (ws !== socket) return; // an old connection, already given up
    socket = null;
    seq = null;
    waiting = false;
    tell("lost", everLive ? "reconnecting…" : "cannot reach the table: trying again…");
    timer = setTimeout(open, delay);
    delay = Math.min(delay * 2, 10000);
  }

  function check() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const now = Date.now();
    if (asked && now - asked > ANSWER_MS) {
      // No answer: the connection is dead even though it never closed. Give it up.
      const ws = socket;
      ws.onclose = null;
      ws.onmessage = null;
      try {
        ws.close();
      } catch {
        // closing a dead socket may throw: it is given up either way
      }
      lost(ws);
    } else if (!asked && now - heard > QUIET_MS) {
      asked = now;
      socket.send(JSON.stringify({ type: "resync" }));
    }
  }

  function receive(message) {
    if (message.type === "snapshot") {
      seq = message.seq;
      waiting = false;
      onState(message.state, seq);
    } else if (message.type === "update") {
      if (waiting || seq === null) return;
      if (message.seq <= seq) return; // older than the snapshot we have
      if (message.seq !== seq + 1) {
        resync();
        return;
      }
      seq = message.seq;
      onState(message.state, seq);
      onUpdate(message);
    }
  }

  function resync() {
    waiting = true;
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "resync" }));
  }

  open();
  watchdog = setInterval(check, Math.min(QUIET_MS, ANSWER_MS) / 4);
  return {
    reconnect() {
      if (socket) socket.close();
      else if (timer === null) open();
    },
    stop() {
      clearInterval(watchdog);
    },
  };
}
