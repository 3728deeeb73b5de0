// The soul dashboard: a plain Nostr client in the browser, and the owner's control panel.
// It subscribes to the town relay and renders what the relay holds; the server tells it who is
// who, where the relay is and the kind numbers, and signs as the owner what the panel asks for,
// only with the secret `soul up` printed (…/#token=…), kept in this tab's sessionStorage.
"use strict";

const STAGES = ["Discussion", "Announcement", "Executing", "Completed"];
const PARAMS = ["risk_tolerance", "innovation_weight", "safety_weight", "thoroughness", "consensus_flexibility"];
const state = { town: null, K: {}, kindName: {}, names: {}, roles: {}, events: new Map(), beats: {}, socket: null,
  token: null, dirty: {}, commentMsg: {}, confirmMsg: {}, logFor: null, log: new Map() };

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const json = (e) => { try { return JSON.parse(e.content); } catch { return null; } };
const tag = (e, name) => (e.tags.find((t) => t[0] === name) || [])[1];
const etags = (e) => e.tags.filter((t) => t[0] === "e").map((t) => t[1]);
const who = (pk) => state.names[pk] || (pk === state.town?.owner ? "owner" : pk.slice(0, 8) + "…");
const ago = (t) => { const s = Math.max(0, Math.floor(Date.now() / 1000) - t); return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.floor(s / 60)}m ago` : `${Math.floor(s / 3600)}h ago`; };
const byKind = (k) => [...state.events.values()].filter((e) => e.kind === k);
const brains = () => state.town.members.filter((m) => m.role === "brain");

async function start() {
  // The secret travels in the fragment, which the browser never sends; keep it for this tab and
  // take it out of the address bar so that a shared screenshot or link does not carry it.
  const m = location.hash.match(/token=([0-9a-f]+)/);
  if (m) { sessionStorage.setItem("soul-token", m[1]); history.replaceState(null, "", location.pathname); }
  state.token = sessionStorage.getItem("soul-token");
  const [town, kinds] = await Promise.all([fetch("/api/town").then((r) => r.json()), fetch("/api/kinds").then((r) => r.json())]);
  state.town = town;
  for (const [name, k] of Object.entries(kinds)) { state.K[name] = k.number; state.kindName[k.number] = name; }
  $("town").textContent = `soul town ${town.town}`;
  for (const m of town.members) { state.names[m.pubkey] = m.name; state.roles[m.pubkey] = m.role; }
  const why = !town.can_write ? "the owner key is not on this machine"
    : !state.token ? "read-only: open the address `soul up` printed (…/#token=…) to write" : "";
  if (why) for (const b of document.querySelectorAll(".write")) { b.disabled = true; b.title = why; }
  $("writemsg").textContent = why;
  $("taskform").addEventListener("submit", submit);
  $("evaluate").addEventListener("click", askEvaluation);
  $("agents").addEventListener("click", (ev) => { const a = ev.target.closest(".agent"); if (a) openLog(a.dataset.pubkey); });
  $("tasks").addEventListener("submit", postComment);
  $("tasks").addEventListener("click", confirmTask);
  buildParams();
  connect();
  setInterval(render, 5000);
  render();
}

function relayUrl() {
  const r = state.town.relay;
  if (!r.same_host) return r.url;
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.hostname}:${r.port}${r.path}`;
}

function connect() {
  const url = relayUrl();
  const ws = new WebSocket(url);
  state.socket = ws;
  $("relay").textContent = url;
  ws.onopen = () => {
    $("conn").className = "dot on";
    const K = state.K;
    const kinds = [K.task, K.opinion, K.decision, K.announcement, K.execution, K.review, K.evaluation, K.karma,
      K.news, K.town_event, K.params, K.draft, K.roster];
    ws.send(JSON.stringify(["REQ", "town", { kinds, limit: 2000 }, { kinds: [K.note], limit: 100 },
      { kinds: [K.note], authors: [state.town.owner], limit: 500 }, { kinds: [K.heartbeat], limit: 500 }]));
    if (state.logFor) subscribeLog();
  };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg[0] === "EVENT" && msg[1] === "log") { state.log.set(msg[2].id, msg[2]); schedule(); }
    else if (msg[0] === "EVENT") { add(msg[2]); schedule(); }
    if (msg[0] === "EOSE") render();
  };
  ws.onclose = () => { $("conn").className = "dot off"; setTimeout(connect, 2000); };
}

function add(e) {
  if (e.kind === state.K.heartbeat) { state.beats[e.pubkey] = Math.max(state.beats[e.pubkey] || 0, e.created_at); return; }
  const replaceable = e.kind >= 30000 ? `${e.kind}:${e.pubkey}:${tag(e, "d")}` : null;
  if (replaceable) {
    const old = state.events.get(replaceable);
    if (old && old.created_at >= e.created_at) return;
    state.events.set(replaceable, e);
  } else state.events.set(e.id, e);
}

let pending = null;
function schedule() { if (!pending) pending = setTimeout(() => { pending = null; render(); }, 150); }

async function write(path, body) {
  const r = await fetch(path, { method: "POST", body: JSON.stringify(body ?? {}),
    headers: { "content-type": "application/json", authorization: `Bearer ${state.token}` } });
  return r.ok ? { ok: true, id: (await r.json()).id } : { ok: false, why: await r.text() };
}

async function submit(ev) {
  ev.preventDefault();
  $("submit").disabled = true; $("formmsg").textContent = "publishing…";
  const r = await write("/api/task", { title: $("title").value, description: $("description").value, priority: $("priority").value });
  $("submit").disabled = false;
  if (r.ok) { $("formmsg").textContent = `published ${r.id.slice(0, 8)}…`; $("title").value = ""; $("description").value = ""; }
  else $("formmsg").textContent = `refused: ${r.why}`;
}

async function askEvaluation() {
  $("evalmsg").textContent = "asking…";
  const r = await write("/api/evaluate");
  $("evalmsg").textContent = r.ok ? `evaluation ${r.id.slice(0, 8)}… requested` : `refused: ${r.why}`;
}

async function postComment(ev) {
  ev.preventDefault();
  const form = ev.target.closest("form.comment-form");
  if (!form) return;
  const task = form.dataset.task;
  state.commentMsg[task] = "posting…"; renderTasks();
  const r = await write("/api/comment", { task, text: form.querySelector("input").value });
  // The task list may have been drawn again meanwhile (the comment itself arrives from the
  // relay): act on the form as it is now.
  const now = document.querySelector(`.comment-form[data-task="${task}"] input`);
  if (r.ok && now) now.value = "";
  state.commentMsg[task] = r.ok ? "posted" : `refused: ${r.why}`;
  renderTasks();
}

// The owner's word on a doubt: a refusal that offers it can be confirmed, which publishes the
// task again tagged `confirms` (ARCHITECTURE.md, "the owner's word on a doubt").
async function confirmTask(ev) {
  const b = ev.target.closest("button.confirm");
  if (!b) return;
  const task = b.dataset.task;
  state.confirmMsg[task] = "confirming…"; renderTasks();
  const r = await write("/api/confirm", { task });
  state.confirmMsg[task] = r.ok ? `confirmed as ${r.id.slice(0, 8)}…` : `refused: ${r.why}`;
  renderTasks();
}

function confirmationOf(id) {
  // The owner's own, or gorilla's for the owner's "confirm" reply.
  const by = (k) => k === state.town.owner || state.names[k] === "gorilla";
  return ownerTasks().find((x) => by(x.pubkey) && x.tags.some((g) => g[0] === "confirms" && g[1] === id));
}

// Params: the latest of the brain's own 34360 and the owner's 34360 for it (d and p = the brain).
function paramsOf(m) {
  const mine = byKind(state.K.params).filter((e) => e.pubkey === m.pubkey ||
    (e.pubkey === state.town.owner && tag(e, "d") === m.name &&
     e.tags.filter((t) => t[0] === "p").map((t) => t[1]).join() === m.pubkey));
  mine.sort((a, b) => a.created_at - b.created_at || (a.pubkey === state.town.owner) - (b.pubkey === state.town.owner));
  const last = mine.pop();
  const p = last && json(last);
  if (p && PARAMS.every((k) => typeof p[k] === "number" && p[k] >= 0 && p[k] <= 1))
    return { p, source: last.pubkey === state.town.owner ? `set by the owner ${ago(last.created_at)}` : `retuned ${ago(last.created_at)}` };
  return { p: state.town.seed_params[m.name], source: "seed params" };
}

function buildParams() {
  $("params").innerHTML = brains().map((m) => `<div class="params card" data-brain="${esc(m.name)}">
    <div class="name">${esc(m.name)} <span class="source muted"></span></div>
    ${PARAMS.map((k) => `<label class="k">${esc(k.replaceAll("_", " "))} <output></output>
      <input type="range" min="0" max="1" step="0.05" name="${k}"></label>`).join("")}
    <button class="write save">Set ${esc(m.name)}'s params</button> <span class="msg muted"></span></div>`).join("");
  for (const card of document.querySelectorAll("#params .params")) {
    const name = card.dataset.brain;
    card.addEventListener("input", (ev) => { state.dirty[name] = true; ev.target.previousElementSibling.textContent = Number(ev.target.value).toFixed(2); });
    card.querySelector(".save").addEventListener("click", async () => {
      const params = Object.fromEntries(PARAMS.map((k) => [k, Number(card.querySelector(`input[name=${k}]`).value)]));
      card.querySelector(".msg").textContent = "publishing…";
      const r = await write("/api/params", { brain: name, params });
      card.querySelector(".msg").textContent = r.ok ? `published ${r.id.slice(0, 8)}…` : `refused: ${r.why}`;
      if (r.ok) state.dirty[name] = false;
    });
  }
}

function renderParams() {
  for (const m of brains()) {
    const card = document.querySelector(`#params .params[data-brain="${m.name}"]`);
    if (!card) continue;
    const { p, source } = paramsOf(m);
    card.querySelector(".source").textContent = state.dirty[m.name] ? "edited, not saved" : source;
    if (state.dirty[m.name]) continue; // never move a slider under the owner's hand
    for (const k of PARAMS) {
      const input = card.querySelector(`input[name=${k}]`);
      input.value = p[k]; input.previousElementSibling.textContent = Number(p[k]).toFixed(2);
    }
  }
}

function render() { renderAgents(); renderParams(); renderStats(); renderTasks(); renderTown(); renderSide(); renderLog(); }

function renderAgents() {
  const now = Date.now() / 1000;
  $("agents").innerHTML = state.town.members.map((m) => {
    const seen = state.beats[m.pubkey];
    const live = seen && now - seen < 120;
    const open = state.logFor === m.pubkey ? " open" : "";
    return `<div class="agent${open}" data-name="${esc(m.name)}" data-pubkey="${esc(m.pubkey)}" title="show ${esc(m.name)}'s log"><span class="dot ${live ? "on" : "off"}"></span>${esc(m.name)}<span class="role">${esc(m.role)} · ${seen ? ago(seen) : "never seen"}</span></div>`;
  }).join("");
}

function taskStatus(decision, announcement, executions) {
  if (!decision) return { stage: 0, label: "discussing" };
  const d = json(decision);
  if (d?.outcome === "rejected") return { stage: 0, label: "rejected" };
  if (!announcement) return { stage: 1, label: "pending announcement" };
  const last = executions.map(json).filter(Boolean).map((x) => x.status);
  for (const final of ["completed", "needs_owner", "failed"]) if (last.includes(final)) return { stage: final === "completed" ? 4 : 3, label: final.replace("_", " ") };
  if (last.includes("executing")) return { stage: 2, label: "executing" };
  return { stage: 2, label: "announced" };
}

const related = (kind, id) => byKind(kind).filter((e) => etags(e)[0] === id).sort((a, b) => a.created_at - b.created_at);
const ownerTasks = () => byKind(state.K.task).filter((t) => (json(t)?.type ?? "task") !== "evaluation");

function debate(t) {
  const K = state.K;
  const opinions = related(K.opinion, t.id).filter((o) => state.roles[o.pubkey] === "brain");
  const decision = related(K.decision, t.id)[0];
  const announcement = related(K.announcement, t.id)[0];
  const executions = related(K.execution, t.id);
  return { opinions, decision, announcement, executions, status: taskStatus(decision, announcement, executions) };
}

function renderStats() {
  const tasks = ownerTasks().map((t) => debate(t));
  const counts = {};
  for (const d of tasks) counts[d.status.label] = (counts[d.status.label] || 0) + 1;
  const decided = tasks.map((d) => d.decision && json(d.decision)).filter(Boolean);
  const approved = decided.filter((d) => d.outcome === "approved").length;
  const rounds = {};
  for (const d of decided) rounds[d.round] = (rounds[d.round] || 0) + 1;
  $("stats").innerHTML = `<div class="stat"><b>${tasks.length}</b> tasks: ${Object.entries(counts).map(([k, n]) => `<span class="count" data-state="${esc(k)}">${esc(k)} ${n}</span>`).join(" · ") || "none yet"}</div>
    <div class="stat">approval rate <b id="approval">${decided.length ? Math.round((100 * approved) / decided.length) + "%" : "—"}</b> (${approved} of ${decided.length} decided)</div>
    <div class="stat">decided in round ${[1, 2, 3].map((r) => `<span class="round-count" data-round="${r}">${r}: ${rounds[r] || 0}</span>`).join(" · ")}${decided.some((d) => d.mediated) ? ` · mediated ${decided.filter((d) => d.mediated).length}` : ""}</div>`;
}

// Which brains owe an opinion in the open round: the latest round anyone spoke in, or the next
// one once all three have spoken without a decision.
function thinking(opinions, decision) {
  if (decision) return [];
  const names = brains().map((m) => m.pubkey);
  const rounds = opinions.map((o) => json(o)?.round || 1);
  let round = Math.max(1, ...rounds);
  let spoke = new Set(opinions.filter((o, i) => rounds[i] === round).map((o) => o.pubkey));
  if (names.every((pk) => spoke.has(pk))) { if (round >= 3) return []; round += 1; spoke = new Set(); }
  return names.filter((pk) => !spoke.has(pk)).map((pk) => state.names[pk]);
}

function renderTasks() {
  const tasks = ownerTasks().sort((a, b) => b.created_at - a.created_at);
  if (!tasks.length) { $("tasks").innerHTML = `<div class="empty">No tasks yet. Submit one above, or from any Nostr client (kind 4360).</div>`; return; }
  // Keep what the owner is typing in a comment box across re-renders.
  const typed = {}; for (const i of document.querySelectorAll(".comment-form input")) typed[i.closest("form").dataset.task] = i.value;
  const focused = document.activeElement?.closest?.(".comment-form")?.dataset.task;
  const comments = byKind(state.K.note).filter((n) => n.pubkey === state.town.owner);
  const canWrite = state.town.can_write && state.token;
  $("tasks").innerHTML = tasks.slice(0, 30).map((t) => {
    const c = json(t) || {};
    const { opinions, decision, announcement, executions, status: st } = debate(t);
    const stepper = STAGES.map((s, i) => {
      let cls = i < st.stage ? "done" : i === st.stage ? "now" : "";
      if (st.label === "rejected" && i === 0) cls = "rejected";
      if (["failed", "needs owner"].includes(st.label) && i === 2) cls = "failed";
      return `<div class="step ${cls}">${s}</div>`;
    }).join("");
    const rounds = {};
    for (const o of opinions) { const x = json(o); if (x) (rounds[x.round] ||= []).push([o, x]); }
    const roundHtml = Object.keys(rounds).sort().map((r) => `<div class="round"><div class="label">Round ${r}</div>${rounds[r].map(([o, x]) =>
      `<div class="opinion"><div><div class="who">${esc(who(o.pubkey))}</div><span class="vote ${esc(x.vote)}">${esc(String(x.vote).replaceAll("_", " "))}</span><div class="muted">${Math.round((x.confidence || 0) * 100)}%</div></div>
       <div><div class="text">${esc(x.opinion)}</div>${x.concerns?.length ? `<div class="concerns">⚠ ${esc(x.concerns.join(" · "))}</div>` : ""}</div></div>`).join("")}</div>`).join("");
    const busy = thinking(opinions, decision).map((n) => `<span class="thinking" data-brain="${esc(n)}">${esc(n)} 検討中…</span>`).join("");
    const d = decision && json(decision);
    const decisionHtml = d ? `<div class="decision ${esc(d.outcome)}"><b>Decision: ${esc(d.outcome)}</b> (${d.tally?.yes ?? 0} yes / ${d.tally?.reject ?? 0} reject, round ${esc(d.round)}${d.mediated ? ", mediated" : ""}) — ${esc(d.summary)}</div>` : "";
    const offered = d && d.outcome === "rejected" && String(d.summary).includes("--confirm");
    const conf = offered && confirmationOf(t.id);
    const confirmHtml = !offered ? "" : conf ? `<div class="muted">✔ the owner confirmed it: ${esc(conf.id.slice(0, 8))}…</div>`
      : canWrite ? `<div class="confirm-row"><button class="confirm" data-task="${t.id}">Confirm: I mean it</button> <span class="muted">${esc(state.confirmMsg[t.id] || "")}</span></div>` : "";
    const ann = announcement && json(announcement);
    const runs = executions.map(json).filter(Boolean);
    const exec = runs.find((x) => x.status !== "executing") || runs.pop();
    const said = comments.filter((n) => etags(n).includes(t.id)).sort((a, b) => a.created_at - b.created_at)
      .map((n) => `<div class="comment"><b>owner</b> <span class="meta">${ago(n.created_at)}</span> ${esc(n.content)}</div>`).join("");
    const form = canWrite ? `<form class="comment-form" data-task="${t.id}"><input placeholder="Comment as the owner" maxlength="2000" required><button>Comment</button><span class="muted">${esc(state.commentMsg[t.id] || "")}</span></form>` : "";
    return `<div class="card task" data-task="${t.id}"><h3>${esc(c.title)}</h3>
      <div class="muted">${esc(c.priority || "")} priority · ${ago(t.created_at)} · <span class="status">${esc(st.label)}</span></div>
      <div class="stepper">${stepper}</div>${roundHtml || `<div class="empty">The brains are thinking…</div>`}${busy ? `<div class="busy">${busy}</div>` : ""}${decisionHtml}${confirmHtml}
      ${ann ? `<div class="muted" style="margin-top:8px">📣 ${esc(ann.summary)}</div>` : ""}
      ${exec ? `<div class="muted" style="white-space:pre-wrap;margin-top:6px">⚙ ${esc(exec.status)}: ${esc(exec.result)}</div>` : ""}
      <div class="comments">${said}</div>${form}</div>`;
  }).join("");
  for (const i of document.querySelectorAll(".comment-form input")) {
    const id = i.closest("form").dataset.task;
    if (typed[id]) i.value = typed[id];
    if (id === focused) i.focus();
  }
}

function openLog(pubkey) {
  state.logFor = pubkey; state.log = new Map();
  $("logtitle").textContent = `${who(pubkey)}'s log`;
  subscribeLog();
  render();
}

function subscribeLog() {
  if (state.socket?.readyState !== WebSocket.OPEN) return;
  state.socket.send(JSON.stringify(["CLOSE", "log"]));
  state.socket.send(JSON.stringify(["REQ", "log", { authors: [state.logFor], limit: 60 }]));
}

function renderLog() {
  if (!state.logFor) { $("log").innerHTML = `<div class="empty">Click an agent to see its recent events.</div>`; return; }
  const entries = [...state.log.values()].sort((a, b) => b.created_at - a.created_at).slice(0, 60);
  $("log").innerHTML = entries.length ? entries.map((e) => {
    const kind = state.kindName[e.kind] || `kind ${e.kind}`;
    const text = tag(e, "alt") || (e.kind === state.K.note ? e.content : "");
    return `<div class="item entry" data-kind="${esc(kind)}"><span class="badge">${esc(kind)}</span> <span class="meta">${ago(e.created_at)}</span><div>${esc(text.slice(0, 300))}</div></div>`;
  }).join("") : `<div class="empty">Nothing from ${esc(who(state.logFor))} on the relay yet.</div>`;
}

function renderTown() {
  const K = state.K;
  const drafts = byKind(K.draft).sort((a, b) => b.created_at - a.created_at).slice(0, 12);
  const reviews = byKind(K.review);
  $("drafts").innerHTML = drafts.length ? drafts.map((d) => {
    const x = json(d) || {};
    const review = reviews.filter((r) => etags(r).includes(d.id)).pop();
    const rv = review && json(review);
    const status = rv ? rv.verdict : x.status;
    return `<div class="item"><b>${esc(who(d.pubkey))}</b> <span class="badge ${esc(status)}">draft · ${esc(status)}</span><div>${esc(x.content)}</div>${rv && rv.verdict === "rejected" ? `<div class="meta">reviewer: ${esc(rv.reason)} ${esc((rv.rules || []).join(", "))}</div>` : ""}</div>`;
  }).join("") : "";
  const posts = byKind(K.note).filter((n) => state.roles[n.pubkey]).sort((a, b) => b.created_at - a.created_at).slice(0, 25);
  $("posts").innerHTML = posts.length ? posts.map((p) => `<div class="item"><b>${esc(who(p.pubkey))}</b> <span class="meta">${ago(p.created_at)}</span><div>${esc(p.content.replace(/\n*nostr:\S+/g, ""))}</div></div>`).join("")
    : `<div class="empty">No posts yet.</div>`;
}

function renderSide() {
  const K = state.K;
  const news = [...byKind(K.news), ...byKind(K.town_event)].sort((a, b) => b.created_at - a.created_at).slice(0, 15);
  $("bulletin").innerHTML = news.length ? news.map((n) => { const x = json(n) || {};
    return `<div class="item"><b>${esc(x.title)}</b><div>${esc(x.summary || x.description || "")}</div><div class="meta">${esc(x.source || "town event")}</div></div>`; }).join("")
    : `<div class="empty">The bulletin board is empty.</div>`;
  const evals = byKind(K.evaluation).sort((a, b) => b.created_at - a.created_at).slice(0, 12);
  $("evaluations").innerHTML = evals.length ? evals.map((e) => { const x = json(e) || {}; const target = tag(e, "p");
    return `<div class="item">${esc(who(e.pubkey))} → ${esc(who(target || ""))}${x.needs_retuning ? ` <span class="badge rejected">retune</span>` : ""}<div class="meta">${esc(x.cycle)} · ${esc(x.reason)}</div></div>`; }).join("")
    : `<div class="empty">No evaluation cycle yet.</div>`;
  const karma = byKind(K.karma).sort((a, b) => b.created_at - a.created_at).slice(0, 12);
  $("karma").innerHTML = karma.length ? karma.map((k) => { const x = json(k) || {};
    return `<div class="item">${esc(x.lesson)}<div class="meta">${esc(x.topic)} · weight ${esc(x.weight)}</div></div>`; }).join("")
    : `<div class="empty">No lessons yet.</div>`;
}

start();
