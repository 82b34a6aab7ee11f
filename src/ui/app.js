// The operator page: a small no-build app over ponkeeper's REST API. Every data call goes
// through /api/v1/external with the tab's key (X-API-Key), so the key's level, address
// rules, rate limit and the audit log apply as for any client; calls are marked
// X-Ponkeeper-Channel: UI so the audit log can tell them apart. Views are chosen by the
// URL's hash (#/fleet, #/olt/1, #/onu/7, #/search, #/optics, #/alarms, #/outages,
// #/events, #/audit).
"use strict";

const API = "/api/v1/external";
const PAGE = 50;
const state = {
  key: sessionStorage.getItem("ponkeeper.key"),
  lang: sessionStorage.getItem("ponkeeper.lang") || (document.documentElement.lang === "ru" ? "ru" : "en"),
  who: null,
  stopLive: null,
};

function t(word, ...args) {
  let text = (WORDS[state.lang] || WORDS.en)[word] ?? WORDS.en[word] ?? word;
  args.forEach((arg, i) => { text = text.replace(`{${i}}`, arg); });
  return text;
}

// An element with attributes and children (strings become text nodes, never HTML).
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

async function api(path, { method = "GET", body } = {}) {
  // The page's language, so the server's messages (errors, events, session reasons)
  // come in it too.
  const headers = { "X-API-Key": state.key || "", "X-Ponkeeper-Channel": "UI", "Accept-Language": state.lang };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(API + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json = null;
  try { json = await response.json(); } catch (_) { /* not JSON: reported below */ }
  if (!response.ok || !json || json.success === false) {
    const error = json && json.error ? json.error : { code: "HTTP_" + response.status, message: "HTTP " + response.status };
    // English readers see the code before the sentence; Russian ones the sentence only
    // (the code stays on the error, for the page's own checks).
    throw new ApiError(response.status, error.code, state.lang === "ru" ? error.message : `${error.code}: ${error.message}`);
  }
  return json;
}

const query = (params) => {
  const pairs = Object.entries(params).filter(([, v]) => v !== "" && v !== null && v !== undefined);
  return pairs.length ? "?" + new URLSearchParams(pairs).toString() : "";
};
const time = (value) => (value ? String(value).replace("T", " ") : "—");
// What the server takes as an ONU description (src/api/onu_actions.rs): the browser checks
// it before sending, so a refused value never leaves the page.
// Written for the `v` flag browsers give `pattern`: `-`, `/`, `(` and `)` escaped in the sets.
const DESCRIPTION_PATTERN = "[A-Za-z0-9\\-_.,:\\/\\(\\)+@=]([A-Za-z0-9 \\-_.,:\\/\\(\\)+@=]*[A-Za-z0-9\\-_.,:\\/\\(\\)+@=])?";
// A subscriber binding as one line: name and contract, or "" when unbound.
const subscriberText = (subscriber) =>
  subscriber ? [subscriber.name, subscriber.contract && `(${subscriber.contract})`].filter(Boolean).join(" ") : "";
// How long ago a service timestamp (local, no offset) was, in the page's language.
const age = (value) => {
  if (!value) return t("age.never");
  const seconds = Math.max(0, Math.round((Date.now() - new Date(value).getTime()) / 1000));
  if (seconds < 90) return t("age.seconds", seconds);
  if (seconds < 5400) return t("age.minutes", Math.round(seconds / 60));
  return t("age.hours", Math.round(seconds / 3600));
};
const dbm = (value) => (value === null || value === undefined ? "—" : `${value.toFixed(2)} dBm`);
const metres = (value) => (value === null || value === undefined ? "—" : `${value} m`);
// A rate in bits a second, written in Mb/s; `unknown` (a dash unless told) when the
// server has none: a null rate is unknown, never shown as 0.
const rate = (bps, unknown = "—") => (bps === null || bps === undefined ? unknown
  : `${(bps / 1e6).toFixed(bps < 1e7 ? 2 : 1)} ${t("unit.mbps")}`);
// A share (0 to 1) as a percentage, two decimals below 1 % (the server gives four
// decimals of the share) so a light load does not read as 0; a dash when unknown.
const percent = (value) => (value === null || value === undefined ? "—" : `${(value * 100).toFixed(value < 0.01 ? 2 : 1)} %`);
// The lower-case hex digits of a MAC or MAC prefix as `GET /macs?mac=` reads them
// (actors/src/macs.rs, `hex_digits`): `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`,
// `aabb.ccdd.eeff` or `aabbccddeeff`, or a start of one with at least 6 digits; null for
// anything else, so the search asks the server only what it will take as a MAC.
function macDigits(text) {
  text = text.trim();
  const separator = [":", "-", "."].find((s) => text.includes(s));
  const groups = separator ? text.split(separator) : [text];
  const width = groups[0].length;
  const fits = !separator || (width === 2 && separator !== ".") || (width === 4 && separator !== ":");
  const digits = groups.join("");
  const even = !separator || groups.every((g) => g.length === width);
  return fits && even && /^[0-9a-fA-F]{6,12}$/.test(digits) ? digits.toLowerCase() : null;
}
const canAct = () => state.who && state.who.level === "FULL";
const statusBadge = (status) => h("span", { class: `badge s-${status}` }, t(`status.${status}`));
const levelBadge = (level) => h("span", { class: `badge l-${level}` }, t(`level.${level}`));

function flash(message, bad = false) {
  const box = document.getElementById("flash");
  box.textContent = message;
  box.className = bad ? "bad" : "";
  box.hidden = false;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, error.message || String(error));
}

// A table: `columns` are [word, cell(row), {num, sort}]; clicking a header sorts the rows
// shown (the page), and says so with aria-sort.
function table(columns, rows, { caption } = {}) {
  const body = h("tbody");
  let sorted = { index: -1, up: true };
  const headers = columns.map(([word, , opts = {}], index) => {
    const button = h("button", { type: "button", onclick: () => sortBy(index) }, t(word));
    return h("th", { scope: "col", class: opts.num ? "num" : null }, opts.sort ? button : t(word));
  });
  const fill = (list) => {
    body.replaceChildren(...(list.length ? list.map((row) => h("tr", {},
      columns.map(([, cell, opts = {}]) => h("td", { class: opts.num ? "num" : null }, cell(row)))))
      : [h("tr", {}, h("td", { colspan: columns.length, class: "muted" }, t("none")))]));
  };
  function sortBy(index) {
    sorted = { index, up: sorted.index === index ? !sorted.up : true };
    const key = columns[index][2].sort;
    const list = [...rows].sort((a, b) => {
      const x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * (sorted.up ? 1 : -1);
    });
    headers.forEach((th, i) => th.setAttribute("aria-sort", i === index ? (sorted.up ? "ascending" : "descending") : "none"));
    fill(list);
  }
  fill(rows);
  return h("table", {}, caption ? h("caption", { class: "muted" }, caption) : null,
    h("thead", {}, h("tr", {}, headers)), body);
}

function pager(meta, go) {
  const pages = Math.max(1, Math.ceil(meta.totalCount / meta.size));
  return h("div", { class: "pager" },
    h("button", { type: "button", disabled: meta.page <= 0, onclick: () => go(meta.page - 1) }, t("prev")),
    h("span", {}, t("page", meta.page + 1, pages), " · ", t("total", meta.totalCount)),
    h("button", { type: "button", disabled: meta.page + 1 >= pages, onclick: () => go(meta.page + 1) }, t("next")));
}

// Live updates: the event stream when the server has one (read with fetch, so the key
// travels in a header), else a refresh every 3 s. Returns the words saying which.
function live(refresh) {
  const controller = new AbortController();
  let timer = null;
  let pending = null;
  const soon = () => { clearTimeout(pending); pending = setTimeout(refresh, 250); };
  const poll = () => { timer = setInterval(refresh, 3000); };
  const label = h("span", { class: "muted", id: "live" }, t("live.polling"));
  fetch(API + "/events/stream", { headers: { "X-API-Key": state.key, "X-Ponkeeper-Channel": "UI" }, signal: controller.signal })
    .then(async (response) => {
      const type = response.headers.get("content-type") || "";
      if (!response.ok || !type.startsWith("text/event-stream")) { poll(); return; }
      label.textContent = t("live.stream");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (/^data:/m.test(decoder.decode(value, { stream: true }))) soon();
      }
      if (!controller.signal.aborted) poll();
    })
    .catch(() => { if (!controller.signal.aborted) poll(); });
  state.stopLive = () => { controller.abort(); clearInterval(timer); clearTimeout(pending); };
  return label;
}

const view = () => document.getElementById("view");
function show(...children) { view().replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false)); }
