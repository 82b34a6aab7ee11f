// The ONU detail view: its card, actions, optics chart, traffic, the MACs behind it and its
// state history (the helpers it uses are in app.js, the tables of ONUs it is reached from
// in views.js).
"use strict";

async function onuView(id) {
  const onu = (await api(`/onus/${id}`)).data;
  const [optics, history] = await Promise.all([
    api(`/onus/${id}/optics`).then((r) => r.data).catch(() => null),
    api(`/onus/${id}/optics/history?limit=2000`).then((r) => r.data).catch(() => [])]);
  const chart = h("div", { class: "chart", id: "optics-chart", role: "img", "aria-label": t("onu.optics") });
  // Its state history is its events: ONU_DOWN / ONU_UP and flapping from the event log.
  const states = h("div", { id: "onu-states" });
  const [traffic, trafficAsked] = trafficSection(id);
  const macs = macSection(id);
  api(`/events?onuId=${id}&type=ONU_DOWN&type=ONU_UP&type=ONU_FLAPPING&type=ONU_FLAPPING_CLEARED&size=20`)
    .then((r) => states.replaceChildren(table([["c.at", (e) => time(e.at)], ["c.type", (e) => e.type], ["c.message", (e) => e.message]], r.data)))
    .catch((error) => states.replaceChildren(errorBox(error)));
  const form = (word, input, send) => h("form", { class: "inline", onsubmit: async (e) => {
    e.preventDefault();
    try { await send(e.target.elements.value.value); flash(`${t(word)}: ${t("done")}`); route(); } catch (error) { flash(error.message, true); }
  } }, h("label", {}, t(word), input), h("button", { type: "submit", disabled: !canAct() }, t(word)));
  show(
    h("h1", {}, `${t("onu.title")} ${onu.serial} `, statusBadge(onu.status),
      onu.flappingSince ? h("span", { class: "badge l-WARNING", id: "onu-flapping" }, " ", t("onu.flapping", time(onu.flappingSince))) : null),
    h("div", { class: "card" }, h("dl", { class: "detail" },
      h("dt", {}, t("c.olt")), h("dd", {}, h("a", { href: `#/olt/${onu.oltId}` }, onu.oltId), ` · ${onu.ponPort} · ${onu.onuIndex}`),
      h("dt", {}, t("c.description")), h("dd", {}, onu.description || "—"),
      h("dt", {}, t("c.distance")), h("dd", {}, metres(onu.distance)),
      h("dt", {}, t("c.vlan")), h("dd", {}, onu.vlan ?? "—"),
      h("dt", {}, t("c.cause")), h("dd", {}, onu.lastDownCause || "—"),
      h("dt", {}, t("c.subscriber")), h("dd", { id: "onu-subscriber" }, subscriberText(onu.subscriber) || "—"),
      h("dt", {}, t("c.updated")), h("dd", {}, time(onu.lastUpdate)),
      h("dt", {}, t("onu.latest")), h("dd", {}, optics ? [`${t("c.rx")} ${dbm(optics.rxPower)}, ${t("c.tx")} ${dbm(optics.txPower)}, ${t("c.oltRx")} ${dbm(optics.oltRxPower)}`,
        optics.temperature !== null ? `, ${optics.temperature} °C` : "",
        optics.voltage !== null ? `, ${optics.voltage} V` : "",
        optics.biasCurrent !== null ? `, ${optics.biasCurrent} mA` : "", " ", levelBadge(optics.level),
        h("span", { class: "muted", id: "optics-age" }, " ", t("onu.readAt", time(optics.opticsAt), age(optics.opticsAt)))] : "—"))),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "danger", disabled: !canAct(), onclick: async () => {
        if (!confirm(t("confirm.reboot", onu.serial))) return;
        try { await api(`/onus/${id}/reboot`, { method: "POST" }); flash(`${t("onu.reboot")}: ${t("done")}`); } catch (error) { flash(error.message, true); }
      } }, t("onu.reboot")),
      h("button", { type: "button", id: "read-signal", disabled: !canAct(), onclick: async () => {
        try { await api(`/onus/${id}/optics/refresh`, { method: "POST" }); flash(`${t("onu.readNow")}: ${t("done")}`); route(); } catch (error) { flash(error.message, true); }
      } }, t("onu.readNow")),
      form("onu.setVlan", h("input", { name: "value", type: "number", min: 1, max: 4094, required: true, value: onu.vlan ?? "" }),
        (v) => api(`/onus/${id}/vlan`, { method: "POST", body: { vlan: Number(v) } })),
      h("form", { class: "inline", id: "subscriber-form", onsubmit: async (e) => {
        e.preventDefault();
        const fields = e.target.elements;
        const body = { ...(onu.subscriber || {}), contract: fields.contract.value.trim() || null, name: fields.name.value.trim() || null };
        try { await api(`/onus/${id}/subscriber`, { method: "POST", body }); flash(`${t("onu.bind")}: ${t("done")}`); route(); } catch (error) { flash(error.message, true); }
      } }, h("label", {}, t("c.contract"), h("input", { name: "contract", type: "text", maxlength: 256, value: onu.subscriber?.contract ?? "" })),
        h("label", {}, t("c.name"), h("input", { name: "name", type: "text", maxlength: 256, value: onu.subscriber?.name ?? "" })),
        h("button", { type: "submit", disabled: !canAct() }, t("onu.bind"))),
      form("onu.setDescription", h("input", { name: "value", type: "text", maxlength: 64, pattern: DESCRIPTION_PATTERN, title: t("hint.description"), value: onu.description || "" }),
        (v) => api(`/onus/${id}/description`, { method: "POST", body: { description: v } })),
      canAct() ? null : h("span", { class: "muted" }, t("readonly"))),
    h("h2", {}, t("onu.optics")), history.length ? chart : h("p", { class: "muted" }, t("onu.noHistory")),
    h("h2", {}, t("onu.traffic")), traffic,
    h("h2", {}, t("onu.macs")), macs,
    h("h2", {}, t("onu.states")), states);
  if (history.length) drawOptics(chart, history, optics && optics.thresholds);
  // Drawn once the holder is on the page, so the chart takes its width.
  trafficAsked.then((draw) => draw && draw());
}

// 24-hour times and ISO dates on the charts, as everywhere else on the page, in either
// language; `s` is seconds since the epoch, as uPlot counts time.
const pad = (n) => String(n).padStart(2, "0");
const stamp = (s) => { const d = new Date(s * 1000); return `${pad(d.getHours())}:${pad(d.getMinutes())}`; };
const timeSeries = () => ({ label: t("chart.time"), value: (u, s) => {
  if (s == null) return "—";
  const d = new Date(s * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${stamp(s)}`;
} });

// The ONU's traffic: the latest rates and the last 24 hours as a chart. `in` is what the
// OLT received from the ONU (the subscriber's upload), `out` what it sent to it (the
// download); a null rate (a first read, a reset, a layout without counters) is shown as
// unknown, never as 0. Returns the section and a promise of the function that draws the
// chart once the section is shown (or of null when there is nothing to draw).
function trafficSection(id) {
  const latest = h("p", { id: "traffic-latest" }, t("loading"));
  const chart = h("div", { class: "chart", id: "traffic-chart", role: "img", "aria-label": t("onu.traffic") });
  const holder = h("div", { id: "onu-traffic" }, latest, chart);
  const none = t("traffic.none");
  api(`/onus/${id}/traffic`).then(({ data }) => latest.replaceChildren(
    `${t("traffic.down")}: ${rate(data.outBps, none)} · ${t("traffic.up")}: ${rate(data.inBps, none)} `,
    h("span", { class: "muted" }, data.at ? t("onu.readAt", time(data.at), age(data.at)) : "")))
    .catch((error) => latest.replaceChildren(errorBox(error)));
  // No `from` or `to`: the server's default is the last 24 hours in its own zone. The most
  // points one answer holds, so a short traffic interval still reaches now.
  const drawn = api(`/onus/${id}/traffic/history?limit=10000`).then(({ data }) => {
    if (!data.some((p) => p.inBps !== null || p.outBps !== null)) {
      chart.replaceWith(h("p", { class: "muted" }, t("traffic.noHistory")));
      return null;
    }
    return () => drawTraffic(chart, data);
  }).catch((error) => { chart.replaceWith(errorBox(error)); return null; });
  return [holder, drawn];
}

// The traffic history as a uPlot line chart in Mb/s over the last 24 hours: download and
// upload. A null point is a gap in its line, not a drop to 0.
function drawTraffic(holder, points) {
  const now = Date.now() / 1000;
  const x = points.map((p) => Date.parse(p.at) / 1000);
  const mbps = (field) => points.map((p) => (p[field] === null ? null : p[field] / 1e6));
  // Points a little larger than the optics chart's: a new ONU's first minutes of rates
  // are a narrow stripe at the right edge of the day.
  const line = (label, stroke) => ({ label: t(label), stroke, width: 2, points: { show: true, size: 6 },
    value: (u, v) => (v == null ? "—" : v.toFixed(2)) });
  new uPlot({
    width: Math.max(320, holder.clientWidth || 900), height: 260,
    scales: {
      x: { time: true, range: () => [Math.min(now - 86400, x[0]), Math.max(now, x[x.length - 1])] },
      // A rate's axis starts at 0, so the two directions compare at a glance.
      y: { range: (u, min, max) => [0, Math.max(max || 0, 0.01) * 1.1] },
    },
    series: [timeSeries(), line("chart.down", "#2456a6"), line("chart.up", "#1b7f3b")],
    axes: [{ values: (u, splits) => splits.map(stamp) }, { label: t("unit.mbps") }],
  }, [x, mbps("outBps"), mbps("inBps")], holder);
}

// The MACs behind the ONU, the ones its last read saw first, each linked to the search
// for it (which shows every ONU it was behind); warnings say why a list may be empty.
// A FULL key reads them now: a READ_ONLY key's button is disabled, and any refusal (403,
// 429 with its wait) is shown in the server's words.
function macSection(id) {
  const holder = h("div", { id: "onu-macs" }, t("loading"));
  const fill = ({ items, warnings }) => holder.replaceChildren(
    warnings.length ? h("p", { class: "muted", id: "mac-warnings" }, warnings.join(" ")) : null,
    table([
      ["c.mac", (m) => h("a", { href: "#/search" + query({ q: m.mac }), class: "mono" }, m.mac), { sort: (m) => m.mac }],
      ["c.vlan", (m) => m.vlan, { num: true, sort: (m) => m.vlan }],
      ["macs.first", (m) => time(m.firstSeen)],
      ["macs.last", (m) => time(m.lastSeen), { sort: (m) => m.lastSeen }],
      ["c.status", (m) => h("span", { class: `badge ${m.active ? "s-ONLINE" : "s-UNKNOWN"}` }, t(`macs.active.${m.active}`))],
    ], [...items].sort((a, b) => b.active - a.active)));
  api(`/onus/${id}/macs`).then((r) => fill(r.data)).catch((error) => holder.replaceChildren(errorBox(error)));
  const refresh = h("button", { type: "button", id: "refresh-macs", disabled: !canAct(), title: canAct() ? null : t("readonly"),
    onclick: async (e) => {
      e.target.disabled = true;
      try {
        fill((await api(`/onus/${id}/macs/refresh`, { method: "POST" })).data);
        flash(`${t("macs.refresh")}: ${t("done")}`);
      } catch (error) { flash(error.message, true); }
      e.target.disabled = !canAct();
    } }, t("macs.refresh"));
  return [h("div", { class: "actions" }, refresh), holder];
}

// The optics history as a uPlot line chart (dBm over time), with the `[optics]`
// thresholds the levels are set by drawn as dashed lines across the day.
function drawOptics(holder, history, thresholds) {
  const now = Date.now() / 1000;
  // The day's two ends join the readings' times, so the threshold lines span the range
  // the title names; the readings have no value there.
  const x = history.map((r) => Date.parse(r.measuredAt) / 1000);
  const ends = [Math.min(now - 86400, x[0]), ...x, Math.max(now, x[x.length - 1])];
  const padded = (values) => [null, ...values, null];
  const series = (field) => history.map((r) => r[field]);
  const limits = thresholds ? [["chart.warning", thresholds.warningDbm, "#c77700"], ["chart.critical", thresholds.criticalDbm, "#b3261e"]] : [];
  const width = Math.max(320, holder.clientWidth || 900);
  const line = (label, stroke) => ({ label: t(label), stroke, width: 2, spanGaps: true, points: { show: true, size: 4 } });
  new uPlot({
    width, height: 260,
    // The range the title names: the last 24 hours.
    scales: { x: { time: true, range: () => [now - 86400, now] } },
    series: [timeSeries(),
      line("chart.rx", "#2456a6"), line("chart.tx", "#1b7f3b"), line("chart.oltRx", "#9a6200"),
      ...limits.map(([word, , stroke]) => ({ label: t(word), stroke, width: 1, dash: [6, 4], points: { show: false } }))],
    axes: [{ values: (u, splits) => splits.map(stamp) }, { label: "dBm" }],
  }, [ends, ...[series("rxPower"), series("txPower"), series("oltRxPower")].map(padded),
    ...limits.map(([, value]) => ends.map(() => value))], holder);
}
