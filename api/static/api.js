// Talking to the table's REST API. Reading is open by default; every action carries the
// control token (docs/api.md), which is kept on this device in localStorage.

const KEY = "croupier.token";

export function takeTokenFromUrl() {
  // "#token=..." lets a phone pick the token up from a link or QR code; it is then removed
  // from the address bar so it does not linger in the history or on the screen.
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    setToken(decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
}

export function getToken() {
  return localStorage.getItem(KEY) ?? "";
}

export function setToken(token) {
  if (token) localStorage.setItem(KEY, token.trim());
  else localStorage.removeItem(KEY);
}

function headers() {
  const h = { "Content-Type": "application/json" };
  const token = getToken();
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

/** GET a JSON document; the token goes along in case reading is closed. */
export async function read(path) {
  const answer = await fetch(path, { headers: headers() });
  if (!answer.ok) throw new Error(await reason(answer));
  return answer.json();
}

/** POST an action; resolves to the answer, or throws an Error whose message is in words. */
export async function act(path, body = {}) {
  const answer = await fetch(path, { method: "POST", headers: headers(), body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(await reason(answer));
  return answer.json();
}

async function reason(answer) {
  if (answer.status === 401) return "the control token is missing or wrong: enter it in Setup";
  try {
    const doc = await answer.json();
    return typeof doc.detail === "string" ? doc.detail : JSON.stringify(doc.detail);
  } catch {
    return `${answer.status} ${answer.statusText}`;
  }
}
