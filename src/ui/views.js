// The operator page's views, its router and start-up (the helpers they use are in app.js).
"use strict";

async function fleetView(params) {
  const filters = { status: params.get("status") || "", vendor: params.get("vendor") || "", nodeId: params.get("nodeId") || "" };
  const page = Number(params.get("page") || 0);
  // The node counters and the first page of OLTs are asked for at once.
  const nodesAsked = api("/nodes?size=500");
  const select = (name, word, options) => h("label", {}, t(word), h("select", {
    name, onchange: (e) => { filters[name] = e.target.value; go(0); },
  }, h("option", { value: "" }, t("f.any")), options.map(([value, text]) => h("option", { value, selected: filters[name] === String(value) }, text))));
  const go = (p) => { location.hash = "#/fleet" + query({ ...filters, page: p || "" }); };
  const holder = h("div", { id: "olt-table" });
  const refresh = async () => {
    try {
      const result = await api("/olts" + query({ ...filters, page, size: PAGE }));
      holder.replaceChildren(oltTable(result.data), pager(result.meta, go));
    } catch (error) { holder.replaceChildren(errorBox(error)); }
  };
  const [nodes] = await Promise.all([nodesAsked.then((r) => r.data), refresh()]);
  const counters = h("div", { class: "counters", id: "nodes" }, nodes.map((node) => h("div", { class: "counter" },
    h("b", {}, node.name), h("span", { class: "muted" }, node.city), h("br"),
    `${t("c.olt")}: ${node.oltCount} · ${t("c.online")}: ${node.onuOnline} / ${node.onuTotal}`)));
  show(h("h1", {}, t("fleet.title"), " ", live(refresh)),
    h("h2", {}, t("fleet.nodes")), counters,
    h("h2", {}, t("fleet.olts")),
    h("div", { class: "filters" },
      select("status", "f.status", ["ONLINE", "DEGRADED", "OFFLINE", "CONNECTING", "DISABLED"].map((s) => [s, t(`status.${s}`)])),
      select("vendor", "f.vendor", [["huawei", "Huawei"], ["zte", "ZTE"], ["bdcom", "BDCOM"], ["eltex", "Eltex"], ["vsol", "V-SOL"], ["cdata", "C-Data"], ["snr", "SNR"]]),
      select("nodeId", "f.node", nodes.map((n) => [n.id, n.name]))),
    holder);
  // benches/ui_render.py reads this mark: the first render of the fleet view (A6).
  if (!performance.getEntriesByName("fleet-rendered").length) performance.mark("fleet-rendered");
}

function oltTable(olts) {
  return table([
    ["c.id", (o) => h("a", { href: `#/olt/${o.id}` }, o.id), { num: true, sort: (o) => o.id }],
    ["c.status", (o) => statusBadge(o.status), { sort: (o) => o.status }],
    ["c.ip", (o) => o.ip],
    ["c.vendor", (o) => o.vendor, { sort: (o) => o.vendor }],
    ["c.model", (o) => o.model, { sort: (o) => o.model }],
    ["c.city", (o) => o.city, { sort: (o) => o.city }],
    ["c.node", (o) => (o.node ? o.node.name : "—"), { sort: (o) => (o.node ? o.node.name : "") }],
    ["c.ports", (o) => o.totalPorts, { num: true, sort: (o) => o.totalPorts }],
    ["c.onus", (o) => o.totalOnu, { num: true, sort: (o) => o.totalOnu }],
    ["c.online", (o) => o.onuOnline, { num: true, sort: (o) => o.onuOnline }],
    ["c.offline", (o) => (o.onuOffline ? h("strong", { class: "bad" }, o.onuOffline) : 0), { num: true, sort: (o) => o.onuOffline }],
    ["c.updated", (o) => time(o.lastUpdate), { sort: (o) => o.lastUpdate || "" }],
    // In a cluster: the member that polls the OLT.
    olts.some((o) => o.member) ? ["c.member", (o) => o.member || "—", { sort: (o) => o.member || "" }] : null,
  ].filter(Boolean), olts);
}

async function oltView(id, params) {
  const page = Number(params.get("page") || 0);
  const header = h("div", { id: "olt-detail" });
  const renderDetail = (olt) => {
    const s = olt.session;
    header.replaceChildren(
      h("h1", {}, `${t("olt.title")} ${olt.id} · ${olt.model} · `, h("span", { id: "olt-status" }, statusBadge(olt.status))),
      h("div", { class: "card" }, h("dl", { class: "detail" },
        h("dt", {}, t("c.ip")), h("dd", {}, olt.ip),
        h("dt", {}, t("c.vendor")), h("dd", {}, olt.vendor),
        h("dt", {}, t("c.node")), h("dd", {}, `${olt.node ? olt.node.name : "—"} (${olt.city})`),
        h("dt", {}, t("olt.sysName")), h("dd", {}, olt.sysName || "—"),
        h("dt", {}, t("olt.firmware")), h("dd", {}, olt.firmware || "—"),
        olt.member ? [h("dt", {}, t("c.member")), h("dd", { id: "olt-member" }, olt.member)] : null,
        h("dt", {}, t("c.onus")), h("dd", {}, `${olt.onuOnline} / ${olt.totalOnu}`),
        h("dt", {}, t("olt.since")), h("dd", {}, time(s.since)),
        h("dt", {}, t("olt.lastPoll")), h("dd", {}, `${time(s.lastPollAt)} (${s.lastPollMs ?? "—"} ms)`),
        h("dt", {}, t("olt.lastError")), h("dd", { class: s.lastError ? "error" : "" }, s.lastError || "—"),
        (s.warnings || []).length ? [h("dt", {}, t("olt.warnings")), h("dd", {}, s.warnings.join("; "))] : null)),
      h("h2", {}, t("olt.transitions")),
      table([["c.at", (x) => time(x.at)], ["c.status", (x) => (x.from ? `${x.from} → ${x.to}` : x.to)], ["c.message", (x) => x.reason]],
        [...s.transitions].reverse().slice(0, 10)),
      h("h2", {}, t("olt.ports")),
      h("div", { id: "olt-ports" }, table([["c.port", (p) => p.name], ["c.onus", (p) => p.onuTotal, { num: true }], ["c.online", (p) => p.onuOnline, { num: true }],
        // `out` is what the port sends to its ONUs (download), `in` what it receives.
        ["c.downLoad", (p) => utilisation(p.outUtilisation, p.outBps), { sort: (p) => p.outUtilisation ?? -1 }],
        ["c.upLoad", (p) => utilisation(p.inUtilisation, p.inBps), { sort: (p) => p.inUtilisation ?? -1 }]], olt.ports)));
  };
  const refresh = async () => { try { renderDetail((await api(`/olts/${id}`)).data); } catch (error) { header.replaceChildren(errorBox(error)); } };
  await refresh();
  const act = (word, path, confirmText) => h("button", {
    type: "button", class: "primary", disabled: !canAct(), title: canAct() ? null : t("readonly"),
    onclick: async (e) => {
      if (confirmText && !confirm(confirmText)) return;
      e.target.disabled = true;
      // The answer comes after the OLT's next poll: show its status meanwhile.
      const watching = setInterval(refresh, 500);
      try { await api(path, { method: "POST" }); flash(`${t(word)}: ${t("done")}`); } catch (error) { flash(error.message, true); }
      clearInterval(watching);
      e.target.disabled = false;
      refresh();
      configs();
    },
  }, t(word));
  const onus = h("div", { id: "onu-table" });
  try {
    const [list, optics] = await Promise.all([
      api(`/olts/${id}/onus` + query({ page, size: PAGE })), api("/optics" + query({ oltId: id, size: 500 }))]);
    const levels = new Map(optics.data.map((o) => [o.onuId, o.level]));
    onus.replaceChildren(onuTable(list.data, levels), pager(list.meta, (p) => { location.hash = `#/olt/${id}?page=${p}`; }));
  } catch (error) { onus.replaceChildren(errorBox(error)); }
  const versions = h("div", { id: "configs" });
  const diff = h("pre", { class: "diff", hidden: true, "aria-live": "polite" });
  async function configs() {
    try {
      const list = (await api(`/olts/${id}/configs?size=10`)).data;
      versions.replaceChildren(table([
        ["c.id", (c) => c.id, { num: true }], ["c.taken", (c) => time(c.takenAt)], ["c.size", (c) => `${c.sizeBytes} B`, { num: true }],
        ["c.changed", (c) => t(c.changed ? "yes" : "no")],
        ["olt.diff", (c) => h("button", { type: "button", onclick: () => showDiff(c.id) }, t("olt.diff"))]], list));
    } catch (error) { versions.replaceChildren(errorBox(error)); }
  }
  async function showDiff(configId) {
    try {
      const text = (await api(`/olts/${id}/configs/${configId}/diff`)).data.diff || "";
      diff.replaceChildren(...text.split("\n").map((line) => h("span", { class: line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : null }, line + "\n")));
      diff.hidden = false;
    } catch (error) { flash(error.message, true); }
  }
  await configs();
  const timer = setInterval(refresh, 2000);
  state.stopLive = () => clearInterval(timer);
  show(header,
    h("div", { class: "actions" },
      act("olt.restart", `/olts/${id}/restart-session`, t("confirm.restart", id)),
      act("olt.poll", `/olts/${id}/poll`), act("olt.backup", `/olts/${id}/configs/backup`),
      canAct() ? null : h("span", { class: "muted" }, t("readonly"))),
    h("h2", {}, t("olt.onus")), onus, h("h2", {}, t("olt.configs")), versions, diff);
}

// A port's use of its capacity one way: a bar (a <meter>, amber past 70 %, red past 90 %)
// and the percentage with the rate it stands for; a dash while the share is unknown.
function utilisation(share, bps) {
  if (share === null || share === undefined) return "—";
  return h("span", { class: "util" },
    h("meter", { min: 0, max: 1, low: 0.7, high: 0.9, optimum: 0, value: share, "aria-label": percent(share) }),
    ` ${percent(share)} · ${rate(bps)}`);
}

function onuTable(onus, levels = new Map()) {
  return table([
    ["c.id", (o) => h("a", { href: `#/onu/${o.id}` }, o.id), { num: true, sort: (o) => o.id }],
    ["c.status", (o) => statusBadge(o.status), { sort: (o) => o.status }],
    ["c.olt", (o) => h("a", { href: `#/olt/${o.oltId}` }, o.oltId), { num: true }],
    ["c.port", (o) => o.ponPort, { sort: (o) => o.ponPort }],
    ["c.index", (o) => o.onuIndex, { num: true }],
    ["c.serial", (o) => o.serial, { sort: (o) => o.serial }],
    ["c.description", (o) => o.description || ""],
    ["c.subscriber", (o) => subscriberText(o.subscriber), { sort: (o) => subscriberText(o.subscriber) }],
    ["c.rx", (o) => [dbm(o.rxPower), " ", levels.has(o.id) ? levelBadge(levels.get(o.id)) : null], { num: true, sort: (o) => o.rxPower ?? -99 }],
    ["c.distance", (o) => metres(o.distance), { num: true }],
    ["c.vlan", (o) => o.vlan ?? "—", { num: true }],
    ["c.cause", (o) => o.lastDownCause || "—"],
  ], onus);
}

// The search: serials, descriptions and subscribers (`GET /onus?q=`), and, when the text
// spells a MAC or a prefix of one (6 hex digits or more, app.js `macDigits`), every ONU
// that MAC is or was behind (`GET /macs?mac=`, newest first, paged). A serial's fragment
// can be hex too, so then both are asked: the MAC's ONUs first, and the ONU search under
// them when it found something.
async function searchView(params) {
  const q = params.get("q") || "";
  const page = Number(params.get("page") || 0);
  const mac = q ? macDigits(q) : null;
  const results = h("div", { id: "results" });
  const macResults = h("div", { id: "mac-results" });
  if (q) {
    const [onus, macs] = await Promise.allSettled([api("/onus" + query({ q, size: PAGE })),
      mac ? api("/macs" + query({ mac: q, page, size: PAGE })) : Promise.resolve(null)]);
    if (macs.status === "rejected") macResults.replaceChildren(errorBox(macs.reason));
    else if (macs.value) {
      macResults.replaceChildren(h("h2", {}, t("search.macs")), macTable(macs.value.data),
        pager(macs.value.meta, (p) => { location.hash = "#/search" + query({ q, page: p || "" }); }));
    }
    if (onus.status === "rejected") results.replaceChildren(errorBox(onus.reason));
    else if (!mac || onus.value.data.length) {
      results.replaceChildren(...[mac ? h("h2", {}, t("search.onus")) : null,
        h("p", { class: "muted" }, t("total", onus.value.meta.totalCount)), onuTable(onus.value.data)].filter(Boolean));
    }
  }
  show(h("h1", {}, t("search.title")),
    h("form", { class: "inline", role: "search", onsubmit: (e) => { e.preventDefault(); location.hash = "#/search" + query({ q: e.target.elements.q.value.trim() }); } },
      h("label", {}, t("search.q"), h("input", { name: "q", type: "search", value: q, size: 40 })),
      h("button", { type: "submit", class: "primary" }, t("search.go"))),
    macResults, results);
}

// Where a MAC is or was: each ONU linked to its view; a MAC active behind two ONUs at
// once (a loop or a cloned MAC) is marked on both.
function macTable(sightings) {
  return table([
    ["c.onu", (m) => h("a", { href: `#/onu/${m.onuId}` }, m.serial), { sort: (m) => m.serial }],
    ["c.olt", (m) => h("a", { href: `#/olt/${m.oltId}` }, m.oltId), { num: true }],
    ["c.port", (m) => m.ponPort],
    ["c.mac", (m) => h("span", { class: "mono" }, m.mac), { sort: (m) => m.mac }],
    ["c.vlan", (m) => m.vlan, { num: true }],
    ["macs.first", (m) => time(m.firstSeen)],
    ["macs.last", (m) => time(m.lastSeen), { sort: (m) => m.lastSeen }],
    ["c.status", (m) => [h("span", { class: `badge ${m.active ? "s-ONLINE" : "s-UNKNOWN"}` }, t(`macs.active.${m.active}`)),
      m.duplicate ? [" ", h("span", { class: "badge v-WARNING duplicate", title: t("macs.duplicateHint") }, t("macs.duplicate"))] : null]],
  ], sightings);
}

async function opticsView(params) {
  const level = params.get("level") || "";
  const page = Number(params.get("page") || 0);
  const list = await api("/optics" + query({ level, page, size: PAGE }));
  const levels = ["CRITICAL", "WARNING", "OK", "UNKNOWN"];
  show(h("h1", {}, t("optics.title")),
    h("div", { class: "filters" }, h("label", {}, t("f.level"), h("select", { onchange: (e) => { location.hash = "#/optics" + query({ level: e.target.value }); } },
      h("option", { value: "" }, t("f.any")), levels.map((l) => h("option", { value: l, selected: l === level }, t(`level.${l}`)))))),
    table([
      ["c.id", (o) => h("a", { href: `#/onu/${o.onuId}` }, o.onuId), { num: true }],
      ["c.serial", (o) => o.serial ?? ""], ["c.olt", (o) => o.oltId ?? ""], ["c.port", (o) => o.ponPort ?? ""],
      ["c.rx", (o) => dbm(o.rxPower), { num: true, sort: (o) => o.rxPower ?? -99 }], ["c.tx", (o) => dbm(o.txPower), { num: true }],
      ["c.oltRx", (o) => dbm(o.oltRxPower), { num: true }], ["c.level", (o) => levelBadge(o.level)], ["c.measured", (o) => time(o.measuredAt)],
    ], list.data), pager(list.meta, (p) => { location.hash = "#/optics" + query({ level, page: p || "" }); }));
}

// The event types the log writes, in the order the filter offers them.
const EVENT_TYPES = ["ONU_DOWN", "ONU_UP", "PON_OUTAGE", "SPLITTER_OUTAGE", "POWER_OUTAGE", "OLT_OUTAGE", "OUTAGE_CLEARED", "OLT_STATUS_CHANGED", "OPTICS_LEVEL_CHANGED", "ONU_DISCOVERED",
  "ONU_AUTHORIZED", "ONU_DEAUTHORIZED", "SZO_DOWN", "SZO_UP", "CONFIG_CHANGED"];

async function eventsView(params) {
  const filters = { type: params.get("type") || "", oltId: params.get("oltId") || "", nodeId: params.get("nodeId") || "" };
  let list;
  try { list = await api("/events" + query({ ...filters, size: PAGE })); } catch (error) {
    show(h("h1", {}, t("events.title")), error.status === 404 ? h("p", { class: "muted" }, t("events.none")) : errorBox(error));
    return;
  }
  const go = (e) => {
    e.preventDefault();
    const f = e.target.elements;
    location.hash = "#/events" + query({ type: f.type.value, oltId: f.oltId.value.trim(), nodeId: f.nodeId.value.trim() });
  };
  const link = (href, text) => h("a", { href }, text);
  show(h("h1", {}, t("events.title")),
    h("form", { class: "inline", id: "events-filter", onsubmit: go },
      h("label", {}, t("c.type"), h("select", { name: "type" }, h("option", { value: "" }, t("f.any")),
        EVENT_TYPES.map((type) => h("option", { value: type, selected: filters.type === type }, t(`ev.${type}`))))),
      h("label", {}, t("c.olt"), h("input", { name: "oltId", type: "number", min: 1, value: filters.oltId, size: 6 })),
      h("label", {}, t("f.node"), h("input", { name: "nodeId", type: "number", min: 1, value: filters.nodeId, size: 6 })),
      h("button", { type: "submit", class: "primary" }, t("events.filter"))),
    table([
      ["c.id", (e) => e.id, { num: true }], ["c.at", (e) => time(e.at)], ["c.type", (e) => t(`ev.${e.type}`)],
      ["c.severity", (e) => h("span", { class: `badge v-${e.severity}` }, t(`sev.${e.severity}`))],
      ["c.olt", (e) => (e.oltId ? link(`#/olt/${e.oltId}`, e.oltId) : "")],
      ["c.target", (e) => (e.onuId ? link(`#/onu/${e.onuId}`, `ONU ${e.onuId}`) : e.ponPort ?? "")],
      ["c.message", (e) => e.message ?? ""]], list.data));
}

// Outages: what is broken now (or what was), each with its cause, OLT, ONUs and contracts;
// refreshed live, since an outage opens and clears as the polls come in.
async function outagesView(params) {
  const active = params.get("active") || "true";
  const page = Number(params.get("page") || 0);
  const go = (a, p) => { location.hash = "#/outages" + query({ active: a, page: p || "" }); };
  const holder = h("div", { id: "outage-table" });
  const contracts = (list) => list.slice(0, 5).join(", ") + (list.length > 5 ? ` +${list.length - 5}` : "");
  const refresh = async () => {
    try {
      const list = await api("/outages" + query({ active: active === "all" ? "" : active, page, size: PAGE }));
      holder.replaceChildren(table([
        ["c.id", (o) => o.id, { num: true }], ["c.type", (o) => t(`ev.${o.type}`)], ["outages.cause", (o) => o.cause],
        ["c.olt", (o) => h("a", { href: `#/olt/${o.oltId}` }, o.oltId)], ["c.port", (o) => o.ponPort ?? ""],
        ["c.onus", (o) => o.onuIds.length, { num: true, sort: (o) => o.onuIds.length }],
        ["outages.contracts", (o) => contracts(o.contracts)],
        ["outages.started", (o) => time(o.startedAt)], ["outages.ended", (o) => (o.endedAt ? time(o.endedAt) : t("outages.ongoing"))],
      ], list.data), pager(list.meta, (p) => go(active, p)));
    } catch (error) { holder.replaceChildren(errorBox(error)); }
  };
  await refresh();
  show(h("h1", {}, t("outages.title"), " ", live(refresh)),
    h("div", { class: "filters" }, h("label", {}, t("outages.show"), h("select", { id: "outages-active", onchange: (e) => go(e.target.value, 0) },
      ["true", "false", "all"].map((value) => h("option", { value, selected: value === active }, t(`outages.${value}`)))))),
    holder);
}

// Alarms: what is wrong now, the ones nobody has taken first; a FULL key acknowledges one
// with a comment (the key's name and the time are recorded, and audited). Live.
async function alarmsView(params) {
  const active = params.get("active") || "true";
  const page = Number(params.get("page") || 0);
  const go = (a, p) => { location.hash = "#/alarms" + query({ active: a, page: p || "" }); };
  const holder = h("div", { id: "alarm-table" });
  const object = (a) => (a.onuId ? h("a", { href: `#/onu/${a.onuId}` }, `ONU ${a.onuId}`)
    : a.outageId ? h("a", { href: "#/outages?active=all" }, `${t("outages.title")} ${a.outageId}`)
      : a.oltId ? h("a", { href: `#/olt/${a.oltId}` }, `OLT ${a.oltId}`) : a.object);
  const ack = (a) => h("button", { type: "button", class: "ack", disabled: !canAct(), onclick: async () => {
    const comment = prompt(t("alarms.comment"), "");
    if (comment === null) return;
    try { await api(`/alarms/${a.id}/ack`, { method: "POST", body: { comment } }); flash(`${t("alarms.ack")}: ${t("done")}`); refresh(); } catch (error) { flash(error.message, true); }
  } }, t("alarms.ack"));
  const taken = (a) => (a.acknowledgedBy ? `${a.acknowledgedBy}, ${time(a.acknowledgedAt)}${a.comment ? ` — ${a.comment}` : ""}` : ack(a));
  const refresh = async () => {
    try {
      const list = await api("/alarms" + query({ active: active === "all" ? "" : active, page, size: PAGE }));
      holder.replaceChildren(table([
        ["c.id", (a) => a.id, { num: true }], ["c.type", (a) => t(`alarm.${a.type}`)],
        ["c.severity", (a) => h("span", { class: `badge v-${a.severity}` }, t(`sev.${a.severity}`))],
        ["c.target", object], ["c.message", (a) => a.message],
        ["outages.started", (a) => time(a.startedAt)], ["alarms.cleared", (a) => (a.clearedAt ? time(a.clearedAt) : t("outages.ongoing"))],
        ["alarms.taken", taken],
      ], list.data), pager(list.meta, (p) => go(active, p)));
    } catch (error) { holder.replaceChildren(errorBox(error)); }
  };
  await refresh();
  show(h("h1", {}, t("alarms.title"), " ", live(refresh)),
    h("div", { class: "filters" }, h("label", {}, t("outages.show"), h("select", { id: "alarms-active", onchange: (e) => go(e.target.value, 0) },
      ["true", "false", "all"].map((value) => h("option", { value, selected: value === active }, t(`outages.${value}`)))))),
    holder);
}

async function unconfiguredView(params) {
  const page = Number(params.get("page") || 0);
  const list = await api("/unconfigured-onus" + query({ page, size: PAGE }));
  const form = h("div", { id: "authorize" });
  const open = async (onu) => {
    let profiles = [];
    try { profiles = (await api(`/olts/${onu.oltId}/onu-profiles`)).data; } catch (error) { flash(error.message, true); }
    const choice = (kind, name, word) => {
      const options = profiles.filter((p) => p.kind === kind);
      return options.length ? h("label", {}, t(word), h("select", { name }, options.map((p) => h("option", { value: p.id }, `${p.id} ${p.name}`)))) : null;
    };
    form.replaceChildren(h("form", { class: "inline card", id: "authorize-form", onsubmit: async (e) => {
      e.preventDefault();
      const fields = e.target.elements;
      const body = { ponPort: onu.ponPort, serial: onu.serial };
      for (const name of ["lineProfile", "serviceProfile", "onuType", "description"]) {
        if (fields[name] && fields[name].value.trim()) body[name] = fields[name].value.trim();
      }
      if (fields.vlan.value) body.vlan = Number(fields.vlan.value);
      e.target.querySelector("button[type=submit]").disabled = true;
      try {
        const created = (await api(`/olts/${onu.oltId}/onus/authorize`, { method: "POST", body })).data;
        flash(`${t("unconf.authorize")}: ${t("done")}`);
        location.hash = `#/onu/${created.id}`;
      } catch (error) { flash(error.message, true); e.target.querySelector("button[type=submit]").disabled = !canAct(); }
    } },
    h("strong", {}, `${onu.serial} · ${t("c.olt")} ${onu.oltId} · ${onu.ponPort}`),
    choice("LINE", "lineProfile", "unconf.line"), choice("SERVICE", "serviceProfile", "unconf.service"),
    choice("ONU_TYPE", "onuType", "unconf.type"),
    h("label", {}, t("c.vlan"), h("input", { name: "vlan", type: "number", min: 1, max: 4094 })),
    h("label", {}, t("c.description"), h("input", { name: "description", type: "text", maxlength: 64, pattern: DESCRIPTION_PATTERN, title: t("hint.description") })),
    h("button", { type: "submit", class: "primary", disabled: !canAct() }, t("unconf.authorize"))));
    form.querySelector("select, input").focus();
  };
  show(h("h1", {}, t("unconf.title")), canAct() ? null : h("p", { class: "muted" }, t("readonly")),
    table([
      ["c.olt", (o) => h("a", { href: `#/olt/${o.oltId}` }, o.oltId), { num: true }], ["c.port", (o) => o.ponPort],
      ["c.serial", (o) => o.serial], ["unconf.model", (o) => o.equipmentId ?? "—"],
      ["unconf.first", (o) => time(o.firstSeenAt)], ["unconf.last", (o) => time(o.lastSeenAt)],
      ["unconf.authorize", (o) => h("button", { type: "button", disabled: !canAct(), onclick: () => open(o) }, t("unconf.authorize"))],
    ], list.data), pager(list.meta, (p) => { location.hash = "#/unconfigured" + query({ page: p || "" }); }), form);
}

async function auditView(params) {
  const page = Number(params.get("page") || 0);
  const list = await api("/audit-logs" + query({ page, size: PAGE }));
  show(h("h1", {}, t("audit.title")), table([
    ["c.at", (a) => time(a.at)], ["c.key", (a) => a.keyName ?? "—"], ["c.action", (a) => a.action],
    ["c.target", (a) => a.target ?? a.path ?? ""], ["c.result", (a) => a.result], ["c.status", (a) => a.httpStatus],
    ["c.channel", (a) => a.channel ?? ""], ["c.ip", (a) => a.clientIp],
  ], list.data), pager(list.meta, (p) => { location.hash = "#/audit?page=" + p; }));
}

function loginView() {
  const form = document.getElementById("login").content.cloneNode(true);
  show(form);
  translate();
  document.getElementById("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    state.key = document.getElementById("key").value.trim();
    try {
      await signIn();
      sessionStorage.setItem("ponkeeper.key", state.key);
      if (!location.hash || location.hash === "#/login") location.hash = "#/fleet"; else route();
    } catch (error) {
      state.key = null;
      document.getElementById("login-error").textContent = error.message;
    }
  });
  document.getElementById("key").focus();
}

async function signIn() {
  state.who = (await api("/whoami")).data;
  document.getElementById("who").textContent = `${state.who.keyName} · ${state.who.level}`;
  document.getElementById("logout").hidden = false;
}

function translate() {
  document.documentElement.lang = state.lang;
  document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
  document.getElementById("lang").textContent = state.lang === "ru" ? "EN" : "RU";
}

async function route() {
  if (state.stopLive) { state.stopLive(); state.stopLive = null; }
  if (!state.key) { loginView(); return; }
  if (!state.who) {
    try { await signIn(); } catch (error) { state.key = null; sessionStorage.removeItem("ponkeeper.key"); loginView(); return; }
  }
  const [path, search] = (location.hash.slice(1) || "/fleet").split("?");
  const params = new URLSearchParams(search || "");
  const [, name, id] = path.split("/");
  const views = {
    fleet: () => fleetView(params), olt: () => oltView(Number(id), params), onu: () => onuView(Number(id)),
    search: () => searchView(params), optics: () => opticsView(params), events: () => eventsView(params), audit: () => auditView(params),
    unconfigured: () => unconfiguredView(params), outages: () => outagesView(params), alarms: () => alarmsView(params),
  };
  document.querySelectorAll("header nav a").forEach((a) => a.setAttribute("aria-current", a.getAttribute("href") === `#/${name}` ? "page" : "false"));
  try { await (views[name] || views.fleet)(); } catch (error) { show(errorBox(error)); }
}

document.getElementById("lang").addEventListener("click", () => {
  state.lang = state.lang === "ru" ? "en" : "ru";
  sessionStorage.setItem("ponkeeper.lang", state.lang);
  translate();
  route();
});
document.getElementById("logout").addEventListener("click", () => {
  sessionStorage.removeItem("ponkeeper.key");
  state.key = null;
  state.who = null;
  document.getElementById("who").textContent = "";
  document.getElementById("logout").hidden = true;
  location.hash = "#/login";
});
window.addEventListener("hashchange", route);
translate();
route();
