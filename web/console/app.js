// arbroker's web console: the node's HTTP/JSON API (docs/http-api.md) seen by one user, kept
// live by its watch stream (GET /v1/watch, docs/watch.md). No framework, no build step.
"use strict";

const HOUR = 3600;
const state = { user: "", token: "", last: -1, watch: null, refreshing: null, live: false };

const $ = (id) => document.getElementById(id);
const svgNS = "http://www.w3.org/2000/svg";

function headers() {
  return { "X-Arb-User": state.user, "Authorization": "Bearer " + state.token };
}

// POST /v1/<op>: the reply body, or an Error carrying the node's error object.
async function api(op, body) {
  const res = await fetch("/v1/" + op, {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/json" }, headers()),
    body: JSON.stringify(body || {}),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const e = new Error((data.error || res.status) + ": " + (data.message || res.statusText));
    e.status = res.status;
    throw e;
  }
  return data;
}

function when(t) {
  if (!t) return "-";
  return new Date(t * 1000).toISOString().replace(".000Z", "Z");
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// -- signing in ------------------------------------------------------------------------------

async function signIn(user, token) {
  state.user = user;
  state.token = token;
  await api("clusters");  // refuses a wrong token (401)
  sessionStorage.setItem("arb-user", user);
  sessionStorage.setItem("arb-token", token);
  $("signin").hidden = true;
  $("console").hidden = false;
  $("signout").hidden = false;
  $("refresh").hidden = false;
  $("who").textContent = user;
  await refresh();
  watch();
  // Your own changes come live with the watch; others' reservations (busy blocks) and the
  // clusters' load are read again every 30 s.
  setInterval(() => refresh().catch(showError), 30000);
}

function signOut() {
  sessionStorage.clear();
  if (state.watch) state.watch.abort();
  location.reload();
}

// -- what the node says ----------------------------------------------------------------------

async function refresh() {
  const [clusters, status, list, jobs] = await Promise.all([
    api("clusters"), api("status"), api("list", { user: "" }), api("grid_list", { user: "" }),
  ]);
  renderClusters(clusters.clusters, status.clusters);
  renderTimeline(clusters.clusters, status.clusters, list.reservations);
  renderJobs(jobs.jobs);
}

// Several events in a row make one refresh.
function refreshSoon() {
  if (state.refreshing) return;
  state.refreshing = setTimeout(() => {
    state.refreshing = null;
    refresh().catch(showError);
  }, 150);
}

function renderClusters(clusters, statuses) {
  const body = $("clusters").tBodies[0];
  body.replaceChildren();
  for (const c of clusters) {
    const s = statuses.find((x) => x.cluster === c.name) || {};
    const share = c.cpus ? (s.reserved_cpus || 0) / c.cpus : 0;
    const bar = el("span", { class: "bar" });
    bar.style.width = Math.round(80 * share) + "px";
    body.append(el("tr", { "data-cluster": c.name },
      el("td", {}, c.name), el("td", {}, c.lrms), el("td", { class: "num" }, c.cpus),
      el("td", {}, bar, " ", s.reserved_cpus || 0),
      el("td", { class: "num" }, s.running_jobs || 0), el("td", { class: "num" }, s.queued_jobs || 0),
      el("td", { class: "num" }, s.holds || 0), el("td", { class: "num" }, s.committed || 0)));
  }
}

// One band per cluster, CPUs up, time across: each reservation or running job a block as tall
// as its CPUs, stacked where it fits (first fit, in start order).
function renderTimeline(clusters, statuses, mine) {
  const now = Math.floor(Date.now() / 1000);
  const from = now - HOUR, to = now + 23 * HOUR;
  const width = 1100, left = 90, band = 64, gap = 14, top = 22;
  const x = (t) => left + (Math.min(Math.max(t, from), to) - from) / (to - from) * (width - left);
  const height = top + clusters.length * (band + gap);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", id: "gantt" });
  for (let h = 0; h <= 24; h += 3) {
    const t = from + h * HOUR;
    root.append(svg("line", { class: "tick", x1: x(t), x2: x(t), y1: top - 4, y2: height }));
    root.append(svg("text", { x: x(t) + 2, y: 12 }, when(t).slice(11, 16)));
  }
  clusters.forEach((c, i) => {
    const y0 = top + i * (band + gap);
    const s = statuses.find((v) => v.cluster === c.name) || {};
    root.append(svg("text", { x: 4, y: y0 + band / 2 + 4 }, c.name));
    root.append(svg("rect", { x: left, y: y0, width: width - left, height: band, fill: "none",
      stroke: "#e3e6eb" }));
    const blocks = [];
    for (const r of mine.filter((r) => r.cluster === c.name))
      blocks.push({ start: r.start, end: r.end, np: r.np, id: r.id,
        cls: r.state === "accepted" ? "hold" : "mine",
        title: `${r.id} ${r.owner}: ${r.np} CPUs ${when(r.start)} - ${when(r.end)} (${r.state})` });
    const known = new Set(blocks.map((b) => b.id));
    for (const r of s.reservations || [])
      if (!known.has(r.id))
        blocks.push({ start: r.start, end: r.end, np: r.np, id: "", cls: "other",
          title: `busy: ${r.np} CPUs ${when(r.start)} - ${when(r.end)}` });
    for (const j of s.lrms_running || [])
      blocks.push({ start: j.start, end: j.end, np: j.np, id: "", job: j.id, cls: "job",
        title: `job ${j.id || "(another user's)"}: ${j.np} CPUs until ${when(j.end)}` });
    blocks.sort((a, b) => a.start - b.start);
    const placed = [];
    for (const b of blocks) {
      if (b.end <= from || b.start >= to) continue;
      const h = Math.max(3, band * Math.min(b.np, c.cpus) / c.cpus);
      let y = 0;
      for (;;) {
        const clash = placed.find((p) => p.start < b.end && b.start < p.end && p.y < y + h &&
          y < p.y + p.h);
        if (!clash) break;
        y = clash.y + clash.h;
      }
      if (y + h > band) y = band - h;  // over-full (overlapping terms): drawn at the top
      placed.push({ start: b.start, end: b.end, y, h });
      const attrs = { class: b.cls, x: x(b.start), y: y0 + band - y - h,
        width: Math.max(2, x(b.end) - x(b.start)), height: h };
      if (b.id) attrs["data-reservation"] = b.id;
      if (b.job) attrs["data-job"] = b.job;
      const rect = svg("rect", attrs, svg("title", {}, b.title));
      root.append(rect);
      if (b.id && h >= 12 && x(b.end) - x(b.start) > 60)
        root.append(svg("text", { class: "label", x: x(b.start) + 3, y: y0 + band - y - h / 2 + 4 },
          b.id));
    }
  });
  root.append(svg("line", { class: "now", x1: x(now), x2: x(now), y1: top - 4, y2: height }));
  $("timeline").replaceChildren(root);
  $("span").textContent = `${when(from)} to ${when(to)}`;
}

function renderJobs(jobs) {
  const body = $("jobs").tBodies[0];
  body.replaceChildren();
  for (const j of jobs) {
    const copies = el("details", {}, el("summary", {}, `${j.copies.length} copies`),
      el("ul", {}, ...j.copies.map((c) =>
        el("li", {}, `${c.cluster} ${c.lrms_id || ""} ${c.state}${c.reason ? ": " + c.reason : ""}`))),
      el("ol", {}, ...j.history.map((h) =>
        el("li", {}, `${when(h.at)} ${h.copy >= 0 ? "copy " + h.copy + ": " : ""}${h.what}`))));
    body.append(el("tr", { "data-job": j.id },
      el("td", {}, j.id), el("td", {}, j.name), el("td", {}, j.strategy), el("td", {}, j.state),
      el("td", { class: "num" }, j.np), el("td", {}, copies),
      el("td", { class: "num" }, j.migrations), el("td", { class: "num" }, j.resubmits)));
  }
}

function logEvent(e) {
  const line = `${e.id} ${when(e.at)} ${e.kind} ${e.subject}` +
    (e.cluster ? ` ${e.cluster}` : "") + ` ${e.state}` + (e.what ? ` (${e.what})` : "");
  const list = $("events");
  list.prepend(el("li", { "data-event": e.id, "data-kind": e.kind }, line));
  while (list.children.length > 200) list.lastChild.remove();
}

function setLive(on) {
  state.live = on;
  $("live").className = on ? "on" : "off";
  $("live").textContent = on ? "live" : "offline";
}

// -- the watch stream ------------------------------------------------------------------------

// GET /v1/watch read with fetch (an EventSource cannot send the token): each message updates
// the page; a lost stream is taken up again from the last id seen.
async function watch() {
  const controller = new AbortController();
  state.watch = controller;
  try {
    const res = await fetch(`/v1/watch?since=${state.last}`,
      { headers: headers(), signal: controller.signal });
    if (!res.ok) throw new Error("watch: " + res.status);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let end;
      while ((end = text.indexOf("\n\n")) >= 0) {
        onMessage(text.slice(0, end));
        text = text.slice(end + 2);
      }
    }
  } catch (e) {
    if (controller.signal.aborted) return;
  }
  setLive(false);
  setTimeout(watch, 3000);  // taken up again after the last id seen: nothing lost
}

function onMessage(message) {
  let kind = "", data = "", id = null;
  for (const line of message.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = line.slice(0, colon), value = line.slice(colon + 1).replace(/^ /, "");
    if (name === "event") kind = value;
    else if (name === "data") data += data ? "\n" + value : value;
    else if (name === "id") id = Number(value);
  }
  if (id !== null) state.last = id;
  if (kind === "watching") {
    setLive(true);
    refreshSoon();  // what happened while the stream was down
  } else if (kind === "error") {
    setLive(false);
  } else if (kind) {
    logEvent(JSON.parse(data));
    refreshSoon();
  }
}

function showError(e) {
  $("signin-error").textContent = e.message;
}

window.addEventListener("DOMContentLoaded", () => {
  $("signin").addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("signin-error").textContent = "";
    signIn($("user").value.trim(), $("token").value).catch(showError);
  });
  $("signout").addEventListener("click", signOut);
  $("refresh").addEventListener("click", () => refresh().catch(showError));
  $("node").textContent = location.host;
  const user = sessionStorage.getItem("arb-user"), token = sessionStorage.getItem("arb-token");
  if (user && token) signIn(user, token).catch(showError);
});
