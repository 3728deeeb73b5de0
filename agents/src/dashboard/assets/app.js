// The soul dashboard: a plain Nostr client in the browser. It subscribes to the town relay and
// renders what the relay holds; the server only tells it where the relay is and who is who.
"use strict";

const K = { task: 4360, opinion: 4361, decision: 4362, announcement: 4363, execution: 4364,
  review: 4365, evaluation: 4366, karma: 4367, news: 4371, townEvent: 4372, heartbeat: 14360,
  params: 34360, draft: 34361, roster: 34364, note: 1 };
const STAGES = ["Discussion", "Announcement", "Executing", "Completed"];
const state = { town: null, names: {}, roles: {}, events: new Map(), beats: {}, socket: null };

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const json = (e) => { try { return JSON.parse(e.content); } catch { return null; } };
const tag = (e, name) => (e.tags.find((t) => t[0] === name) || [])[1];
const etags = (e) => e.tags.filter((t) => t[0] === "e").map((t) => t[1]);
const who = (pk) => state.names[pk] || (pk === state.town?.owner ? "owner" : pk.slice(0, 8) + "…");
const ago = (t) => { const s = Math.max(0, Math.floor(Date.now() / 1000) - t); return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.floor(s / 60)}m ago` : `${Math.floor(s / 3600)}h ago`; };
const byKind = (k) => [...state.events.values()].filter((e) => e.kind === k);

async function start() {
  state.town = await (await fetch("/api/town")).json();
  $("town").textContent = `soul town ${state.town.town}`;
  $("relay").textContent = state.town.relay;
  for (const m of state.town.members) { state.names[m.pubkey] = m.name; state.roles[m.pubkey] = m.role; }
  if (!state.town.can_submit) { $("submit").disabled = true; $("formmsg").textContent = "the owner key is not on this machine"; }
  $("taskform").addEventListener("submit", submit);
  connect();
  setInterval(render, 5000);
  render();
}

function connect() {
  const ws = new WebSocket(state.town.relay);
  state.socket = ws;
  ws.onopen = () => {
    $("conn").className = "dot on";
    const kinds = Object.values(K);
    ws.send(JSON.stringify(["REQ", "town", { kinds: kinds.filter((k) => k !== K.note && k !== K.heartbeat), limit: 2000 },
      { kinds: [K.note], limit: 100 }, { kinds: [K.heartbeat], limit: 500 }]));
  };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg[0] === "EVENT") { add(msg[2]); schedule(); }
    if (msg[0] === "EOSE") { render(); }
  };
  ws.onclose = () => { $("conn").className = "dot off"; setTimeout(connect, 2000); };
}

function add(e) {
  if (e.kind === K.heartbeat) { state.beats[e.pubkey] = Math.max(state.beats[e.pubkey] || 0, e.created_at); return; }
  const replaceable = e.kind >= 30000 ? `${e.kind}:${e.pubkey}:${tag(e, "d")}` : null;
  if (replaceable) {
    const old = state.events.get(replaceable);
    if (old && old.created_at >= e.created_at) return;
    state.events.set(replaceable, e);
  } else state.events.set(e.id, e);
}

let pending = null;
function schedule() { if (!pending) pending = setTimeout(() => { pending = null; render(); }, 150); }

async function submit(ev) {
  ev.preventDefault();
  $("submit").disabled = true; $("formmsg").textContent = "publishing…";
  const body = { title: $("title").value, description: $("description").value, priority: $("priority").value };
  const r = await fetch("/api/task", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  $("submit").disabled = false;
  if (r.ok) { const { id } = await r.json(); $("formmsg").textContent = `published ${id.slice(0, 8)}…`; $("title").value = ""; $("description").value = ""; }
  else $("formmsg").textContent = `refused: ${await r.text()}`;
}

function render() { renderAgents(); renderTasks(); renderTown(); renderSide(); }

function renderAgents() {
  const now = Date.now() / 1000;
  $("agents").innerHTML = state.town.members.map((m) => {
    const seen = state.beats[m.pubkey];
    const live = seen && now - seen < 120;
    return `<div class="agent" data-name="${esc(m.name)}"><span class="dot ${live ? "on" : "off"}"></span>${esc(m.name)}<span class="role">${esc(m.role)} · ${seen ? ago(seen) : "never seen"}</span></div>`;
  }).join("");
}

function taskStatus(decision, announcement, executions) {
  if (!decision) return { stage: 0, label: "discussing" };
  const d = json(decision);
  if (d?.outcome === "rejected") return { stage: 0, label: "rejected" };
  if (!announcement) return { stage: 1, label: "pending announcement" };
  const last = executions.map(json).filter(Boolean).map((x) => x.status);
  if (last.includes("completed")) return { stage: 4, label: "completed" };
  if (last.includes("failed")) return { stage: 3, label: "failed" };
  if (last.includes("executing")) return { stage: 2, label: "executing" };
  return { stage: 2, label: "announced" };
}

function renderTasks() {
  const tasks = byKind(K.task).filter((t) => (json(t)?.type ?? "task") !== "evaluation").sort((a, b) => b.created_at - a.created_at);
  if (!tasks.length) { $("tasks").innerHTML = `<div class="empty">No tasks yet. Submit one above, or from any Nostr client (kind 4360).</div>`; return; }
  const related = (kind, id) => byKind(kind).filter((e) => etags(e)[0] === id).sort((a, b) => a.created_at - b.created_at);
  $("tasks").innerHTML = tasks.slice(0, 30).map((t) => {
    const c = json(t) || {};
    const opinions = related(K.opinion, t.id).filter((o) => state.roles[o.pubkey] === "brain");
    const decision = related(K.decision, t.id)[0];
    const announcement = related(K.announcement, t.id)[0];
    const executions = related(K.execution, t.id);
    const st = taskStatus(decision, announcement, executions);
    const stepper = STAGES.map((s, i) => {
      let cls = i < st.stage ? "done" : i === st.stage ? "now" : "";
      if (st.label === "rejected" && i === 0) cls = "rejected";
      if (st.label === "failed" && i === 2) cls = "failed";
      return `<div class="step ${cls}">${s}</div>`;
    }).join("");
    const rounds = {};
    for (const o of opinions) { const x = json(o); if (x) (rounds[x.round] ||= []).push([o, x]); }
    const roundHtml = Object.keys(rounds).sort().map((r) => `<div class="round"><div class="label">Round ${r}</div>${rounds[r].map(([o, x]) =>
      `<div class="opinion"><div><div class="who">${esc(who(o.pubkey))}</div><span class="vote ${esc(x.vote)}">${esc(x.vote.replaceAll("_", " "))}</span><div class="muted">${Math.round((x.confidence || 0) * 100)}%</div></div>
       <div><div class="text">${esc(x.opinion)}</div>${x.concerns?.length ? `<div class="concerns">⚠ ${esc(x.concerns.join(" · "))}</div>` : ""}</div></div>`).join("")}</div>`).join("");
    const d = decision && json(decision);
    const decisionHtml = d ? `<div class="decision ${esc(d.outcome)}"><b>Decision: ${esc(d.outcome)}</b> (${d.tally?.yes ?? 0} yes / ${d.tally?.reject ?? 0} reject, round ${d.round}${d.mediated ? ", mediated" : ""}) — ${esc(d.summary)}</div>` : "";
    const ann = announcement && json(announcement);
    const runs = executions.map(json).filter(Boolean);
    const exec = runs.find((x) => x.status !== "executing") || runs.pop();
    return `<div class="card task" data-task="${t.id}"><h3>${esc(c.title)}</h3>
      <div class="muted">${esc(c.priority || "")} priority · ${ago(t.created_at)} · <span class="status">${esc(st.label)}</span></div>
      <div class="stepper">${stepper}</div>${roundHtml || `<div class="empty">The brains are thinking…</div>`}${decisionHtml}
      ${ann ? `<div class="muted" style="margin-top:8px">📣 ${esc(ann.summary)}</div>` : ""}
      ${exec ? `<div class="muted" style="white-space:pre-wrap;margin-top:6px">⚙ ${esc(exec.status)}: ${esc(exec.result)}</div>` : ""}</div>`;
  }).join("");
}

function renderTown() {
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
  const news = [...byKind(K.news), ...byKind(K.townEvent)].sort((a, b) => b.created_at - a.created_at).slice(0, 15);
  $("bulletin").innerHTML = news.length ? news.map((n) => { const x = json(n) || {};
    return `<div class="item"><b>${esc(x.title)}</b><div>${esc(x.summary || x.description || "")}</div><div class="meta">${esc(x.source || "town event")}</div></div>`; }).join("")
    : `<div class="empty">The bulletin board is empty.</div>`;
  const params = byKind(K.params);
  $("params").innerHTML = params.length ? params.map((p) => { const x = json(p) || {};
    return `<div class="params"><div class="name">${esc(who(p.pubkey))}</div>${Object.entries(x).map(([k, v]) =>
      `<div class="k">${esc(k.replaceAll("_", " "))} ${Number(v).toFixed(2)}</div><div class="bar"><span style="width:${Math.round(v * 100)}%"></span></div>`).join("")}</div>`; }).join("")
    : `<div class="empty">Seed params (none retuned yet).</div>`;
  const evals = byKind(K.evaluation).sort((a, b) => b.created_at - a.created_at).slice(0, 12);
  $("evaluations").innerHTML = evals.length ? evals.map((e) => { const x = json(e) || {}; const target = e.tags.find((t) => t[0] === "p")?.[1];
    return `<div class="item">${esc(who(e.pubkey))} → ${esc(who(target || ""))}${x.needs_retuning ? ` <span class="badge rejected">retune</span>` : ""}<div class="meta">${esc(x.cycle)} · ${esc(x.reason)}</div></div>`; }).join("")
    : `<div class="empty">No evaluation cycle yet.</div>`;
  const karma = byKind(K.karma).sort((a, b) => b.created_at - a.created_at).slice(0, 12);
  $("karma").innerHTML = karma.length ? karma.map((k) => { const x = json(k) || {};
    return `<div class="item">${esc(x.lesson)}<div class="meta">${esc(x.topic)} · weight ${esc(x.weight)}</div></div>`; }).join("")
    : `<div class="empty">No lessons yet.</div>`;
}

start();
