// The WebSocket /ws: a snapshot, then updates numbered by seq. Updates are applied in seq
// order; a gap asks for a resync (a fresh snapshot); a dropped connection reconnects with a
// growing delay. Every message carries the whole public state, so the page shows exactly
// what the server sent and nothing else.

import { getToken } from "./api.js";

export function connect({ onState, onViolation, onLink, tokenInQuery }) {
  let seq = null;
  let waiting = false; // a resync was asked for: updates wait for its snapshot
  let socket = null;
  let delay = 500;
  let timer = null;

  function url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // Browsers cannot set headers on a WebSocket: when reading is closed the token goes in
    // the query (docs/api.md); otherwise it stays out of URLs altogether.
    const query = tokenInQuery() && getToken() ? `?token=${encodeURIComponent(getToken())}` : "";
    return `${scheme}://${location.host}/ws${query}`;
  }

  function open() {
    timer = null;
    onLink("connecting…", false);
    socket = new WebSocket(url());
    socket.onopen = () => {
      delay = 500;
      onLink("live", true);
    };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = () => {
      onLink("reconnecting…", false);
      socket = null;
      seq = null;
      waiting = false;
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
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
      onViolation(message.violation);
    }
  }

  function resync() {
    waiting = true;
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "resync" }));
  }

  open();
  return {
    reconnect() {
      if (socket) socket.close();
      else if (timer === null) open();
    },
  };
}
