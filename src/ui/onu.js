// The ONU detail view: its card, actions, optics chart and state history (the helpers it
// uses are in app.js, the tables of ONUs it is reached from in views.js).
"use strict";

async function onuView(id) {
  const onu = (await api(`/onus/${id}`)).data;
  const [optics, history] = await Promise.all([
    api(`/onus/${id}/optics`).then((r) => r.data).catch(() => null),
    api(`/onus/${id}/optics/history?limit=2000`).then((r) => r.data).catch(() => [])]);
  const chart = h("div", { class: "chart", id: "optics-chart", role: "img", "aria-label": t("onu.optics") });
  // Its state history is its events: ONU_DOWN / ONU_UP from the event log.
  const states = h("div", { id: "onu-states" });
  api(`/events?onuId=${id}&type=ONU_DOWN&type=ONU_UP&size=20`)
    .then((r) => states.replaceChildren(table([["c.at", (e) => time(e.at)], ["c.type", (e) => e.type], ["c.message", (e) => e.message]], r.data)))
    .catch((error) => states.replaceChildren(errorBox(error)));
  const form = (word, input, send) => h("form", { class: "inline", onsubmit: async (e) => {
    e.preventDefault();
    try { await send(e.target.elements.value.value); flash(`${t(word)}: ${t("done")}`); route(); } catch (error) { flash(error.message, true); }
  } }, h("label", {}, t(word), input), h("button", { type: "submit", disabled: !canAct() }, t(word)));
  show(
    h("h1", {}, `${t("onu.title")} ${onu.serial} `, statusBadge(onu.status)),
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
    h("h2", {}, t("onu.states")), states);
  if (history.length) drawOptics(chart, history, optics && optics.thresholds);
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
  // 24-hour times and ISO dates, as everywhere else on the page, in either language.
  const pad = (n) => String(n).padStart(2, "0");
  const stamp = (s) => { const d = new Date(s * 1000); return `${pad(d.getHours())}:${pad(d.getMinutes())}`; };
  const line = (label, stroke) => ({ label: t(label), stroke, width: 2, spanGaps: true, points: { show: true, size: 4 } });
  new uPlot({
    width, height: 260,
    // The range the title names: the last 24 hours.
    scales: { x: { time: true, range: () => [now - 86400, now] } },
    series: [{ label: t("chart.time"), value: (u, s) => {
      if (s == null) return "—";
      const d = new Date(s * 1000);
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${stamp(s)}`;
    } },
      line("chart.rx", "#2456a6"), line("chart.tx", "#1b7f3b"), line("chart.oltRx", "#9a6200"),
      ...limits.map(([word, , stroke]) => ({ label: t(word), stroke, width: 1, dash: [6, 4], points: { show: false } }))],
    axes: [{ values: (u, splits) => splits.map(stamp) }, { label: "dBm" }],
  }, [ends, ...[series("rxPower"), series("txPower"), series("oltRxPower")].map(padded),
    ...limits.map(([, value]) => ends.map(() => value))], holder);
}
