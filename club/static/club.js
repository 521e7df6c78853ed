// The club's page: live updates over a WebSocket (/api/live), the tables that changed as soon as the
// club has stored it; a slow poll only while that connection is lost, said plainly. Every text is
// set as text, never as HTML.
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
const tokenBox = $("token");
tokenBox.value = localStorage.getItem("club-token") || "";

async function get(path) {
  const answer = await fetch(path);
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  return answer.json();
}

function tableCard(t) {
  const card = el("div", undefined, "card");
  card.dataset.table = t.table;
  if (t.flags.length) card.classList.add("flagged");
  if (t.online === false) card.classList.add("offline");
  const reach = t.online === false ? " (offline)" : t.online === null ? " (no status yet)" : "";
  card.append(el("h3", `${t.table}${reach}`));
  card.append(el("div", `${t.game ?? "no game yet"}${t.match ? `, match ${t.match}` : ""}${t.hand ? `, hand ${t.hand}` : ""}`));
  if (t.score) card.append(el("div", `score ${JSON.stringify(t.score)}`));
  if (t.to_act) card.append(el("div", `to act: ${t.to_act}`));
  if (t.paused) card.append(el("div", "paused"));
  for (const f of t.flags) card.append(el("div", f, "flag"));
  if (t.refereed) {
    const link = el("a", `match ${t.refereed.match} record (${t.refereed.state})`);
    link.href = "#";
    link.onclick = (e) => { e.preventDefault(); showRecord(t.table, t.refereed.match); };
    card.append(link);
  }
  return card;
}

async function showRecord(table, match) {
  const r = await get(`/api/tables/${table}/matches/${match}`);
  const box = $("record");
  box.replaceChildren(el("h3", `${table}, match ${match}: ${r.game}, ${r.hands} hands refereed (${r.state})`));
  if (r.problem) box.append(el("p", r.problem, "flag"));
  for (const m of r.mismatches) box.append(el("p", m, "flag"));
  const list = el("ol");
  for (const hand of (r.report?.hands ?? [])) {
    list.append(el("li", `dealer ${hand.dealer}, contract ${hand.contract ?? "-"}, tricks ${JSON.stringify(hand.tricks)}, score ${JSON.stringify(hand.score)}${hand.violations.length ? `, ${hand.violations.length} violation(s)` : ""}`));
  }
  box.append(list);
  if (r.standing) box.append(el("p", `match: ${JSON.stringify(r.standing)}`));
  const log = el("a", "table log (croupier referee replays it)");
  log.href = `/api/tables/${table}/matches/${match}/log`;
  box.append(log);
}

function standingsRows(lines) {
  return lines.map((l, i) => {
    const row = el("tr");
    for (const v of [i + 1, l.entrant, l.played, l.won, l.drawn, l.lost, l.points, l.in_play]) row.append(el("td", String(v)));
    return row;
  });
}

function roundsList(rounds) {
  return rounds.slice(-3).reverse().map((r) => {
    const div = el("div");
    div.append(el("h3", `round ${r.round} (${r.method})`));
    for (const [table, sides] of Object.entries(r.tables)) div.append(el("div", `${table}: ${sides.join(" v ")}`));
    return div;
  });
}

async function refresh() {
  try {
    const [health, tables, lines, rounds] = await Promise.all([get("/api/health"), get("/api/tables"), get("/api/standings"), get("/api/rounds")]);
    $("club").textContent = health.club;
    $("health").textContent = `${health.messages} messages${health.broker ? "" : " (broker not connected)"}`;
    $("tables").replaceChildren(...tables.map(tableCard));
    $("standings").tBodies[0].replaceChildren(...standingsRows(lines));
    $("rounds").replaceChildren(...roundsList(rounds));
  } catch (err) {
    $("health").textContent = String(err.message);
  }
}

const lines = (id) => $(id).value.split("\n").map((s) => s.trim()).filter(Boolean);

// A control action with the club's token; the answer said in words.
async function act(method, path, body, done) {
  localStorage.setItem("club-token", tokenBox.value);
  const headers = { authorization: `Bearer ${tokenBox.value}` };
  if (body) headers["content-type"] = "application/json";
  const answer = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let said = done;
  if (!answer.ok) {
    const detail = (await answer.json().catch(() => ({}))).detail;
    said = `refused: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
  }
  $("said").textContent = said;
  refresh();
}

$("round-form").onsubmit = (e) => {
  e.preventDefault();
  const body = { method: $("method").value };
  if (lines("entrants").length) body.entrants = lines("entrants");
  if (lines("round-tables").length) body.tables = lines("round-tables");
  act("POST", "/api/rounds", body, "round started");
};

const flagPath = () => `/api/tables/${encodeURIComponent($("flag-table").value.trim())}/flag`;
$("flag-form").onsubmit = (e) => {
  e.preventDefault();
  act("POST", flagPath(), { reason: $("flag-reason").value.trim() }, "table flagged");
};
$("unflag").onclick = () => act("DELETE", flagPath(), null, "table unflagged");

// A changed table's card replaced in place (a new table added, in name order).
function showTable(t) {
  const box = $("tables");
  const card = tableCard(t);
  const old = [...box.children].find((c) => c.dataset.table === t.table);
  if (old) { old.replaceWith(card); return; }
  const after = [...box.children].find((c) => c.dataset.table > t.table);
  box.insertBefore(card, after ?? null);
}

// Standings, rounds and the message count change with the tables, but less urgently: read at
// most every few seconds while updates come.
const OTHERS_MS = 5000;
let othersDue = null;
function refreshSoon() {
  if (othersDue === null) othersDue = setTimeout(() => { othersDue = null; refresh(); }, OTHERS_MS);
}

const FALLBACK_MS = 10000; // the poll while the live connection is lost
const RETRY_MAX_MS = 10000;
let fallback = null;
let retryMs = 500;

function showLive(live, text) {
  const box = $("live");
  box.textContent = text;
  box.className = live ? "live" : "lost";
}

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/live`);
  socket.onopen = () => {
    retryMs = 500;
    clearInterval(fallback);
    fallback = null;
    showLive(true, "live");
    refresh(); // what changed while it was away
  };
  socket.onmessage = (e) => {
    for (const t of JSON.parse(e.data).tables) showTable(t);
    refreshSoon();
  };
  socket.onclose = () => {
    showLive(false, `live updates lost: reconnecting; the page is read every ${FALLBACK_MS / 1000} s meanwhile`);
    if (fallback === null) fallback = setInterval(refresh, FALLBACK_MS);
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };
}

refresh();
connect();
