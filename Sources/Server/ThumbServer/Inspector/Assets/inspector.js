// The cache inspector: reads /ui/api/* and draws the page. Every value from the cache goes into
// the page through textContent or a DOM property, never as markup, so a URL with <script> in it
// stays text.
"use strict";

const tokenKey = "thumbd.adminToken";
const state = { listing: null, overview: null, admin: false };

// ---------- small helpers ----------

function el(tag, properties, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(properties || {})) {
    if (value === undefined || value === null) continue;
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else if (name.startsWith("data-")) node.setAttribute(name, String(value));
    else node[name] = value;
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
  return node;
}

const units = ["B", "KiB", "MiB", "GiB", "TiB"];
function bytes(count) {
  let value = count, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit === 0 ? `${count} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function number(count) { return Number(count).toLocaleString("en-US"); }

function percent(ratio) { return ratio === null || ratio === undefined ? "–" : `${(ratio * 100).toFixed(1)}%`; }

function ago(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

function token() { return sessionStorage.getItem(tokenKey) || ""; }

async function api(path, options = {}) {
  const headers = Object.assign({ Accept: "application/json" }, options.headers || {});
  if (options.admin) headers.Authorization = `Bearer ${token()}`;
  const response = await fetch(path, { method: options.method || "GET", headers, cache: "no-store" });
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try { const problem = await response.json(); detail = `${problem.code}: ${problem.detail}`; } catch (_) { /* not JSON */ }
    const error = new Error(detail);
    error.status = response.status;
    throw error;
  }
  return response.status === 204 ? null : response.json();
}

function showStatus(text, isError) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

// ---------- header ----------

function tierView(name, tier, note) {
  const used = tier.maxBytes > 0 ? Math.min(1, tier.bytes / tier.maxBytes) : 0;
  const bar = el("div", { class: used >= 0.95 ? "bar full" : "bar" }, el("span"));
  bar.firstChild.style.width = `${(used * 100).toFixed(1)}%`;
  return el("div", { class: "tier", "data-tier": name, "data-entries": tier.entries, "data-bytes": tier.bytes, "data-max-bytes": tier.maxBytes },
    el("div", { class: "label" },
      el("strong", { text: name }),
      el("span", { text: `${bytes(tier.bytes)} of ${bytes(tier.maxBytes)} · ${number(tier.entries)} entries${note || ""}` })),
    bar);
}

function figure(name, value, id) {
  return el("div", { class: "figure", id }, el("span", { class: "value", text: value }), el("span", { class: "name", text: name }));
}

// One bar a minute (the samples summed), stacked by series.
function chart(title, samples, series, intervalSeconds, now) {
  const minutes = 60, width = 600, height = 60;
  const buckets = Array.from({ length: minutes }, () => series.map(() => 0));
  for (const sample of samples) {
    const age = Math.floor((now - sample.time) / 60);
    if (age < 0 || age >= minutes) continue;
    series.forEach((s, i) => { buckets[minutes - 1 - age][i] += sample[s.field]; });
  }
  const peak = Math.max(1, ...buckets.map((b) => b.reduce((a, c) => a + c, 0)));
  const total = buckets.reduce((sum, b) => sum + b.reduce((a, c) => a + c, 0), 0);
  const picture = svg("svg", { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", role: "img",
    "aria-label": `${title}: ${total} in the last hour`, "data-total": total });
  const slot = width / minutes;
  buckets.forEach((bucket, minute) => {
    let top = height;
    bucket.forEach((value, i) => {
      if (value === 0) return;
      const h = (value / peak) * (height - 2);
      top -= h;
      const bar = svg("rect", { x: (minute * slot + 1).toFixed(1), y: top.toFixed(1), width: (slot - 2).toFixed(1), height: h.toFixed(1),
        fill: series[i].color });
      const label = svg("title");
      label.textContent = `${minutes - 1 - minute} min ago: ${value} ${series[i].name}`;
      bar.append(label);
      picture.append(bar);
    });
  });
  const legend = el("div", { class: "legend" }, `${number(total)} in the last hour, per minute (sampled every ${intervalSeconds} s)`);
  for (const s of series) {
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = s.color;
    legend.append(swatch, s.name);
  }
  return el("div", { class: "chart", "data-chart": title }, el("h2", { text: title }), picture, legend);
}

function jobView(job) {
  const done = job.total > 0 ? job.finished / job.total : 0;
  const bar = el("div", { class: "bar" }, el("span"));
  bar.firstChild.style.width = `${(done * 100).toFixed(1)}%`;
  return el("div", { class: "job", "data-job": job.id },
    el("span", { text: `prefetch ${job.id.slice(0, 8)} · ${job.state}` }),
    bar,
    el("span", { text: `${number(job.finished)} / ${number(job.total)}${job.failed ? ` · ${number(job.failed)} failed` : ""} · ${ago(job.elapsedSeconds)}` }));
}

function renderOverview(o) {
  state.overview = o;
  const tiers = document.getElementById("tiers");
  tiers.replaceChildren(tierView("memory", o.memory, o.memory.maxEntries ? ` (max ${number(o.memory.maxEntries)})` : ""));
  if (o.disk) tiers.append(tierView("disk", o.disk), tierView("originals", o.originals));
  else tiers.append(el("div", { class: "tier muted", text: "The disk tier is off: only the memory tier holds thumbnails, and the grid below stays empty." }));

  if (o.trim && !o.trim.finished) {
    tiers.append(el("div", { class: "tier", "data-trim": String(o.trim.bytesOver),
      text: `Over its limits at start: trimming the oldest entries, ${Math.round(100 * (1 - o.trim.bytesOver / o.trim.bytesOverAtStart))} % done, ${number(Math.ceil(o.trim.bytesOver / 1048576))} MiB left.` }));
  }

  const a = o.activity;
  document.getElementById("figures").replaceChildren(
    figure("hit ratio since start", percent(o.hitRatio), "hit-ratio"),
    figure("hit ratio, last hour", percent(o.lastHourHitRatio), "hit-ratio-hour"),
    figure(o.shared ? "answered from memory + disk + shared" : "answered from memory + disk",
      [a.memoryHits, a.diskHits, ...(o.shared ? [a.sharedHits] : [])].map(number).join(" + "), "hits"),
    figure("made (misses)", number(a.misses), "misses"),
    figure("tier lookups, thumbnails and originals: memory hits / disk hits / misses",
      `${number(a.memoryLookupHits)} / ${number(a.diskLookupHits)} / ${number(a.lookupMisses)}`, "lookups"),
    ...(o.shared ? [figure(`shared tier ${o.shared.location}: hits / misses / errors (${o.shared.counts.breaker === "closed"
        ? "asked" : `breaker ${o.shared.counts.breaker}: not asked, ${number(o.shared.counts.skipped)} skipped`})`,
      `${number(o.shared.counts.hits)} / ${number(o.shared.counts.misses)} / ${number(o.shared.counts.errors)}`, "shared")] : []),
    figure("evictions (memory + disk)", `${number(a.memoryEvictions)} + ${number(a.diskEvictions)}`, "evictions"),
    figure("downloads in flight", number(o.downloadsInFlight), "downloads"),
    figure("thumbnails being made", number(o.jobsInFlight), "jobs-in-flight"),
    figure("waiting for a CPU", number(o.queuedForCPU), "queued"));

  document.getElementById("charts").replaceChildren(
    chart("hits", o.history, [{ field: "memoryHits", name: "memory", color: "#2f6fde" },
      { field: "diskHits", name: "disk", color: "#16a085" },
      ...(o.shared ? [{ field: "sharedHits", name: "shared", color: "#8e44ad" }] : [])], o.intervalSeconds, o.now),
    chart("misses", o.history, [{ field: "misses", name: "made", color: "#e67e22" }], o.intervalSeconds, o.now),
    chart("evictions", o.history, [{ field: "memoryEvictions", name: "memory", color: "#2f6fde" },
      { field: "diskEvictions", name: "disk", color: "#c0392b" }], o.intervalSeconds, o.now));

  document.getElementById("jobs").replaceChildren(...o.prefetch.map(jobView));
  document.getElementById("updated").textContent = `updated ${new Date(o.now * 1000).toLocaleTimeString()}`;
  document.getElementById("token-form").hidden = !o.adminEnabled;
}

async function refreshOverview() {
  try { renderOverview(await api("/ui/api/overview")); } catch (error) { showStatus(`overview: ${error.message}`, true); }
}

// ---------- admin ----------

function setAdmin(on) {
  state.admin = on;
  const mode = document.getElementById("mode");
  mode.textContent = on ? "admin: evictions allowed" : "read-only";
  mode.setAttribute("data-mode", on ? "admin" : "read-only");
  document.getElementById("lock").hidden = !on;
  for (const node of document.querySelectorAll(".admin-only")) node.hidden = !on;
  document.getElementById("evict-host").hidden = !on || !document.getElementById("host").value;
}

async function checkToken() {
  if (!token()) return setAdmin(false);
  try {
    await api("/ui/api/session", { admin: true });
    setAdmin(true);
    document.getElementById("token-message").textContent = "";
  } catch (error) {
    sessionStorage.removeItem(tokenKey);
    setAdmin(false);
    document.getElementById("token-message").textContent = error.message;
  }
}

// `query` names what goes: url=…&variant=… (one entry), url=… (every variant), host=….
async function evict(query, label) {
  if (!state.admin) return;
  if (!window.confirm(`Evict ${label} from both tiers?`)) return;
  try {
    const result = await api(`/v1/cache/entries?${query}`, { method: "DELETE", admin: true });
    showStatus(`Evicted ${label}: ${result.removed.disk} from disk, ${result.removed.memory} from memory.`);
    await Promise.all([loadEntries(currentPosition()), refreshOverview(), loadHosts()]);
  } catch (error) {
    showStatus(`Could not evict ${label}: ${error.message}`, true);
  }
}

// ---------- grid ----------

function filters() {
  const form = document.getElementById("filters");
  const parameters = new URLSearchParams();
  for (const name of ["sort", "host", "q", "kind"]) {
    const value = form.elements[name].value;
    if (value) parameters.set(name, value);
  }
  if (form.elements.reverse.checked) parameters.set("reverse", "1");
  return parameters;
}

function currentPosition() {
  const page = new URLSearchParams(location.search);
  for (const name of ["after", "before", "at"]) if (page.has(name)) return { [name]: page.get(name) };
  return {};
}

function picture(entry) {
  // Originals can be large: show a thumbnail of the same URL when one is cached.
  if (entry.kind === "original" && entry.variants.length === 1 && entry.size > 1048576) {
    return el("div", { class: "picture" }, el("span", { class: "placeholder", text: `original, ${bytes(entry.size)}: not previewed` }));
  }
  const image = el("img", { loading: "lazy", decoding: "async", src: entry.image, alt: `${entry.variant} of ${entry.url}` });
  image.addEventListener("error", () => image.replaceWith(el("span", { class: "placeholder", text: "no longer in the cache" })), { once: true });
  return el("div", { class: "picture" }, image);
}

function entryView(entry, now) {
  const chips = el("div", { class: "chips" });
  for (const variant of entry.variants) chips.append(el("span", { class: variant === entry.variant ? "chip this" : "chip", text: variant }));
  if (entry.inMemory) chips.append(el("span", { class: "chip memory", text: "in memory" }));
  if (entry.stale) chips.append(el("span", { class: "chip stale", text: "stale" }));
  const facts = el("dl", {},
    el("dt", { text: "bytes" }), el("dd", { class: "size", text: bytes(entry.size), title: `${number(entry.size)} bytes` }),
    el("dt", { text: "age" }), el("dd", { class: "age", text: ago(now - entry.created) }),
    el("dt", { text: "last access" }), el("dd", { class: "last-access", text: `${ago(now - entry.lastAccess)} ago` }),
    el("dt", { text: "hits", title: "Hits from either tier; those from memory arrive every few seconds" }),
    el("dd", { class: "hits", text: number(entry.hits) }));
  const card = el("li", { class: "entry", "data-url": entry.url, "data-variant": entry.variant, "data-size": entry.size, "data-hits": entry.hits },
    picture(entry),
    el("div", { class: "facts" },
      el("div", { class: "url", text: entry.url, title: entry.url }),
      el("div", { class: "host", text: entry.host }),
      chips, facts));
  const actions = el("div", { class: "actions" });
  const one = el("button", { type: "button", class: "danger admin-only", text: "Evict", title: "This entry only", hidden: !state.admin });
  one.addEventListener("click", () => evict(`url=${encodeURIComponent(entry.url)}&variant=${encodeURIComponent(entry.variant)}`,
    `${entry.variant} of ${entry.url}`));
  actions.append(one);
  if (entry.variants.length > 1) {
    const all = el("button", { type: "button", class: "danger admin-only", text: "Evict URL", title: "Every variant of this URL",
      hidden: !state.admin });
    all.addEventListener("click", () => evict(`url=${encodeURIComponent(entry.url)}`, `every variant of ${entry.url}`));
    actions.append(" ", all);
  }
  card.append(actions);
  return card;
}

function renderListing(listing) {
  state.listing = listing;
  const grid = document.getElementById("grid");
  grid.replaceChildren(...listing.entries.map((entry) => entryView(entry, listing.now)));
  grid.setAttribute("data-total", listing.total);
  const first = listing.entries.length ? listing.offset + 1 : listing.offset;
  const range = document.getElementById("range");
  range.textContent = `${number(first)}–${number(listing.offset + listing.entries.length)} of ${number(listing.total)}`;
  range.setAttribute("data-total", listing.total);
  document.getElementById("first").disabled = !listing.previous;
  document.getElementById("previous").disabled = !listing.previous;
  document.getElementById("next").disabled = !listing.next;
  document.getElementById("last").disabled = !listing.next;
  if (!listing.diskTier) showStatus("The disk tier is off, so there is no listing.");
  else if (listing.total === 0) showStatus("Nothing in the cache matches.");
  else showStatus(`${number(listing.total)} entries match · the page took ${listing.milliseconds.toFixed(1)} ms`);
}

async function loadEntries(position) {
  const parameters = filters();
  for (const [name, value] of Object.entries(position || {})) parameters.set(name, value);
  history.replaceState(null, "", `${location.pathname}?${parameters}`);
  try {
    renderListing(await api(`/ui/api/entries?${parameters}`));
  } catch (error) {
    showStatus(`listing: ${error.message}`, true);
  }
}

async function loadHosts() {
  const select = document.getElementById("host");
  const chosen = select.value || new URLSearchParams(location.search).get("host") || "";
  try {
    const hosts = await api("/ui/api/hosts");
    const options = [el("option", { value: "", text: "all hosts" })];
    for (const host of hosts) options.push(el("option", { value: host.host, text: `${host.host} (${number(host.entries)}, ${bytes(host.bytes)})` }));
    if (chosen && !hosts.some((h) => h.host === chosen)) options.push(el("option", { value: chosen, text: chosen }));
    select.replaceChildren(...options);
    select.value = chosen;
  } catch (error) {
    showStatus(`hosts: ${error.message}`, true);
  }
}

// ---------- start ----------

function readPageAddress() {
  const page = new URLSearchParams(location.search);
  const form = document.getElementById("filters");
  for (const name of ["sort", "q", "kind"]) if (page.has(name)) form.elements[name].value = page.get(name);
  form.elements.reverse.checked = page.get("reverse") === "1";
  // A token handed over in the fragment (/ui#token=…) never reaches a server log; keep it for
  // this tab only and take it out of the address bar.
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.has("token")) {
    sessionStorage.setItem(tokenKey, fragment.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
}

function wire() {
  const form = document.getElementById("filters");
  form.addEventListener("submit", (event) => { event.preventDefault(); loadEntries({}); });
  for (const name of ["sort", "host", "kind"]) form.elements[name].addEventListener("change", () => { setAdmin(state.admin); loadEntries({}); });
  form.elements.reverse.addEventListener("change", () => loadEntries({}));
  document.getElementById("first").addEventListener("click", () => loadEntries({}));
  document.getElementById("last").addEventListener("click", () => loadEntries({ at: "last" }));
  document.getElementById("next").addEventListener("click", () => state.listing && loadEntries({ after: state.listing.next }));
  document.getElementById("previous").addEventListener("click", () => state.listing && loadEntries({ before: state.listing.previous }));
  document.getElementById("evict-host").addEventListener("click", () => {
    const host = document.getElementById("host").value;
    if (host) evict(`host=${encodeURIComponent(host)}`, `every entry of ${host}`);
  });
  document.getElementById("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = document.getElementById("token");
    sessionStorage.setItem(tokenKey, input.value.trim());
    input.value = "";
    checkToken();
  });
  document.getElementById("lock").addEventListener("click", () => { sessionStorage.removeItem(tokenKey); setAdmin(false); });
}

async function start() {
  readPageAddress();
  wire();
  await Promise.all([loadHosts(), refreshOverview(), checkToken()]);
  await loadEntries(currentPosition());
  document.body.setAttribute("data-ready", "1");
  setInterval(refreshOverview, 5000);
}

start();
