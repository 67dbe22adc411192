/* The book's in-page cost-model explorers (the {cost-explorer} directive): controls, uPlot
 * charts and tables over cost-model.js, computed in the browser with no kernel or network.
 * Every number shown is also in a data-* attribute at full precision, so tests can compare it
 * with the Python package. What the explorers write goes through S() of the course's library
 * (nccl-page.js, loaded before this script), and their numbers through its formatNumber():
 * a translated page carries the strings and its decimal separator as JSON
 * (<script class="nccl-explorer-strings">, written by nccl_course.viz.sphinx_explorers). Names of
 * collectives, algorithms, protocols, presets and models are the same in every language. */
(function () {
  "use strict";

  const KIB = 1024;
  const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

  function formatSize(bytes) {
    let v = bytes;
    let i = 0;
    while (v >= KIB && i < UNITS.length - 1) {
      v /= KIB;
      i += 1;
    }
    return `${formatNumber(v, { sigFigs: 3 })} ${UNITS[i]}`;
  }
  const fmt = (x, digits = 4) => (x == null ? "" : formatNumber(x, { sigFigs: digits }));
  const us = (s) => fmt(s * 1e6);

  function control(box, name, label, options, value, onChange) {
    const sel = element("select", { "data-control": name, "aria-label": label });
    for (const opt of options) {
      const [v, text] = Array.isArray(opt) ? opt : [opt, opt];
      const o = element("option", { value: String(v), text: String(text) });
      sel.append(o);
    }
    sel.value = String(options.map((o) => (Array.isArray(o) ? o[0] : o)).includes(value) ? value : sel.options[0].value);
    sel.addEventListener("change", onChange);
    box.append(element("label", {}, [`${label} `, sel]));
    return sel;
  }

  function setOptions(sel, options, keep) {
    const values = options.map((o) => String(Array.isArray(o) ? o[0] : o));
    sel.replaceChildren(
      ...options.map((o) => element("option", { value: String(Array.isArray(o) ? o[0] : o), text: String(Array.isArray(o) ? o[1] : o) }))
    );
    sel.value = values.includes(String(keep)) ? String(keep) : values[0];
  }

  function chart(host, title, xLabel, yLabel, xs, series, { marks = [], xLog = true } = {}) {
    const width = Math.max(320, Math.min(host.clientWidth || 640, 760));
    const opts = {
      title,
      width,
      height: 280,
      scales: { x: xLog ? { time: false, distr: 3, log: 2 } : { time: false }, y: { distr: 3, log: 10 } },
      axes: [
        { label: xLabel, values: (u, vals) => vals.map((v) => (v == null ? "" : xLog ? formatSize(v) : String(v))) },
        { label: yLabel, values: (u, vals) => vals.map((v) => fmt(v, 3)) },
      ],
      series: [{ label: xLabel, value: (u, v) => (v == null ? "" : xLog ? formatSize(v) : String(v)) }].concat(
        series.map((s, i) => ({
          label: s.label,
          stroke: s.color || COLORS[i % COLORS.length],
          width: s.width || 1.5,
          dash: s.dash,
          points: { show: !xLog },
          value: (u, v) => (v == null ? "" : fmt(v, 4)),
        }))
      ),
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            ctx.save();
            ctx.strokeStyle = "#777";
            ctx.fillStyle = "#444";
            ctx.setLineDash([3, 3]);
            ctx.font = `${Math.round(10 * devicePixelRatio)}px sans-serif`;
            marks.forEach(([x, text], i) => {
              const px = u.valToPos(x, "x", true);
              ctx.beginPath();
              ctx.moveTo(px, u.bbox.top);
              ctx.lineTo(px, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.fillText(text, px + 3, u.bbox.top + (12 + 12 * (i % 4)) * devicePixelRatio);
            });
            ctx.restore();
          },
        ],
      },
    };
    const data = [xs].concat(series.map((s) => s.values));
    return new uPlot(opts, data, host);
  }

  function table(headers, rows) {
    const t = element("table", { class: "nccl-explorer-table" });
    t.append(element("thead", {}, [element("tr", {}, headers.map((h) => element("th", { text: h })))]));
    const body = element("tbody");
    for (const r of rows) {
      const tr = element("tr", r.attrs || {});
      for (const cell of r.cells) tr.append(element("td", { text: cell }));
      body.append(tr);
    }
    t.append(body);
    return t;
  }

  function sizeChoices() {
    const out = [];
    for (let s = 8; s <= 16 * KIB ** 3; s *= 2) out.push([s, formatSize(s)]);
    return out;
  }

  // -- (a) algorithms: time and busbw versus size, switches and NCCL's pick marked -----------
  function algorithmsExplorer(root, m, opts) {
    const ctrl = element("div", { class: "nccl-explorer-controls" });
    const plots = element("div", { class: "nccl-explorer-plots" });
    const out = element("div", { class: "nccl-explorer-out", role: "status", "aria-live": "polite" });
    root.replaceChildren(ctrl, plots, out);
    const collectives = Object.keys(m.data.model.algorithms).filter((c) => c !== "barrier");
    const coll = control(ctrl, "collective", S("collective"), collectives, opts.collective || "all_reduce", redraw);
    const pre = control(ctrl, "preset", S("preset"), Object.keys(m.presets), opts.preset || "h100-nvlink", onPreset);
    const ranks = control(ctrl, "ranks", S("ranks"), m.data.model.rankChoices, opts.ranks || m.presets[pre.value].ranks, redraw);
    const size = control(ctrl, "size", S("size"), sizeChoices(), opts.size || 2 ** 20 * 64, redraw);
    let plotsMade = [];
    function onPreset() {
      ranks.value = String(m.presets[pre.value].ranks);
      redraw();
    }
    function redraw() {
      plotsMade.forEach((u) => u.destroy());
      plots.replaceChildren();
      const c = coll.value;
      const p = Number(ranks.value);
      const s = Number(size.value);
      const d = m.comparisonData(c, pre.value, { ranks: p });
      const algos = Object.keys(d.times);
      const factor = m.busbwFactor(c, p);
      const nccl = m.nccl.collectives().includes(c) && m.nccl.ranks(pre.value).includes(p);
      const picks = nccl ? d.sizes.map((s) => m.nccl.predict(c, s, pre.value, { ranks: p })) : [];
      const timeSeries = algos.map((a) => ({ label: a, values: d.times[a].map((t) => t * 1e6) }));
      const busSeries = algos.map((a) => ({ label: a, values: d.times[a].map((t, i) => (d.sizes[i] / t / 1e9) * factor) }));
      const marks = d.switches.map(([x, a, b]) => [x, `${a}\u2192${b}`]);
      const ncclMarks = [];
      if (nccl) {
        timeSeries.push({ label: S("NCCL's estimate"), values: picks.map((q) => q.time_s * 1e6), color: "#000", dash: [6, 4], width: 2 });
        busSeries.push({ label: S("NCCL's estimate"), values: picks.map((q) => q.busbw_GBps), color: "#000", dash: [6, 4], width: 2 });
        picks.forEach((q, i) => {
          const label = `${q.algorithm}/${q.protocol}`;
          if (i === 0 || label !== `${picks[i - 1].algorithm}/${picks[i - 1].protocol}`) ncclMarks.push([d.sizes[i], `NCCL: ${label}`]);
        });
      }
      const a = element("div", { class: "nccl-explorer-plot", "data-plot": "time" });
      const b = element("div", { class: "nccl-explorer-plot", "data-plot": "busbw" });
      plots.append(a, b);
      plotsMade = [
        chart(a, S("{collective} on {preset}, {ranks} ranks: time", { collective: c, preset: pre.value, ranks: p }), S("size"), S("time (us)"), d.sizes, timeSeries, { marks: marks.concat(ncclMarks, [[s, "\u25bc " + S("size below")]]) }),
        chart(b, S("bus bandwidth (nccl-tests factor)"), S("size"), "busbw (GB/s)", d.sizes, busSeries, { marks: marks.concat([[s, "\u25bc"]]) }),
      ];
      const best = m.predict(c, s, pre.value, { ranks: p });
      const rows = algos.map((algo) => {
        const q = m.predict(c, s, pre.value, { ranks: p, algorithm: algo });
        return {
          attrs: { "data-algorithm": algo, "data-time-s": String(q.time_s), "data-busbw-gbps": String(q.busbw_GBps), "data-chunks": String(q.chunks) },
          cells: [algo === best.algorithm ? S("{algorithm} (fastest)", { algorithm: algo }) : algo, us(q.time_s), fmt(q.algbw_GBps), fmt(q.busbw_GBps), String(q.chunks)],
        };
      });
      const parts = [
        element("p", { class: "nccl-explorer-summary", "data-algorithm": best.algorithm, "data-time-s": String(best.time_s), "data-busbw-gbps": String(best.busbw_GBps), text: S("{collective} of {size} on {ranks} ranks of {preset}: fastest {algorithm}, {time} us, busbw {busbw} GB/s.", { collective: c, size: formatSize(s), ranks: p, preset: pre.value, algorithm: best.algorithm, time: us(best.time_s), busbw: fmt(best.busbw_GBps) }) }),
        table([S("algorithm"), S("time (us)"), "algbw (GB/s)", "busbw (GB/s)", S("pipeline depth")], rows),
        element("p", { class: "nccl-explorer-switches", text: d.switches.length ? S("The fastest changes: {changes}.", { changes: d.switches.map(([x, f, t]) => S("{from} \u2192 {to} at {size}", { from: f, to: t, size: formatSize(x) })).join("; ") }) : S("{algorithm} is fastest at every size.", { algorithm: d.best[0] }) }),
      ];
      if (nccl) {
        const q = m.nccl.predict(c, s, pre.value, { ranks: p });
        const values = { library: `NCCL ${m.nccl.version}`, algorithm: q.algorithm, protocol: q.protocol, channels: q.channels, time: us(q.time_s), busbw: fmt(q.busbw_GBps) };
        // all_to_all has no tuner choice: NCCL runs it as grouped sends and receives
        const text =
          q.algorithm === "P2P"
            ? S("{library} runs it as grouped sends and receives, {protocol} on {channels} channels: {time} us, busbw {busbw} GB/s (its estimate, dashed).", values)
            : S("{library}'s tuner picks {algorithm}/{protocol} on {channels} channels: {time} us, busbw {busbw} GB/s (its estimate, dashed).", values);
        parts.push(element("p", { class: "nccl-explorer-nccl", "data-algorithm": q.algorithm, "data-protocol": q.protocol, "data-channels": String(q.channels), "data-time-s": String(q.time_s), "data-busbw-gbps": String(q.busbw_GBps), text }));
      } else {
        parts.push(element("p", { class: "nccl-explorer-nccl", text: S("NCCL's tuner model does not cover this collective or rank count.") }));
      }
      out.replaceChildren(...parts);
      root.dataset.state = JSON.stringify({ collective: c, preset: pre.value, ranks: p, size: s });
    }
    redraw();
  }

  // -- (b) what NCCL picks across sizes -------------------------------------------------------
  function ncclExplorer(root, m, opts) {
    const ctrl = element("div", { class: "nccl-explorer-controls" });
    const plots = element("div", { class: "nccl-explorer-plots" });
    const out = element("div", { class: "nccl-explorer-out", role: "status", "aria-live": "polite" });
    root.replaceChildren(ctrl, plots, out);
    const presets = Object.keys(m.presets).filter((p) => m.nccl.ranks(p).length);
    const coll = control(ctrl, "collective", S("collective"), m.nccl.collectives(), opts.collective || "all_reduce", redraw);
    const pre = control(ctrl, "preset", S("preset"), presets, opts.preset || "h100-nvls", onPreset);
    const ranks = control(ctrl, "ranks", S("ranks"), m.nccl.ranks(pre.value), opts.ranks || m.presets[pre.value].ranks, redraw);
    const harness = control(ctrl, "harness", S("timed by"), m.nccl.harnesses(), opts.harness || "nccl-tests", redraw);
    let plot = null;
    function onPreset() {
      setOptions(ranks, m.nccl.ranks(pre.value), m.presets[pre.value].ranks);
      redraw();
    }
    function redraw() {
      if (plot) plot.destroy();
      const c = coll.value;
      const p = Number(ranks.value);
      const sizes = m.data.model.defaultSizes;
      const h = harness.value;
      const picks = sizes.map((s) => m.nccl.predict(c, s, pre.value, { ranks: p, harness: h }));
      const marks = [];
      picks.forEach((q, i) => {
        const label = `${q.algorithm}/${q.protocol}`;
        if (i === 0 || label !== `${picks[i - 1].algorithm}/${picks[i - 1].protocol}`) marks.push([sizes[i], label]);
      });
      const host = element("div", { class: "nccl-explorer-plot", "data-plot": "nccl" });
      plots.replaceChildren(host);
      plot = chart(host, S("NCCL's pick for {collective} on {preset}, {ranks} ranks", { collective: c, preset: pre.value, ranks: p }), S("size"), "busbw (GB/s)", sizes, [
        { label: S("busbw of NCCL's pick"), values: picks.map((q) => q.busbw_GBps), color: "#000", dash: [6, 4] },
        { label: S("busbw of a call, timed by {harness}", { harness: h }), values: picks.map((q) => q.call_busbw_GBps), color: "#c0392b", width: 2 },
      ], { marks });
      const rows = sizeChoices().map(([s, text]) => {
        const q = m.nccl.predict(c, s, pre.value, { ranks: p, harness: h });
        return {
          attrs: { "data-size": String(s), "data-algorithm": q.algorithm, "data-protocol": q.protocol, "data-channels": String(q.channels), "data-time-s": String(q.time_s), "data-busbw-gbps": String(q.busbw_GBps), "data-call-time-s": String(q.call_time_s), "data-call-busbw-gbps": String(q.call_busbw_GBps) },
          cells: [text, q.algorithm, q.protocol, String(q.channels), us(q.time_s), fmt(q.busbw_GBps), us(q.call_time_s), fmt(q.call_busbw_GBps)],
        };
      });
      out.replaceChildren(
        table([S("size"), S("algorithm"), S("protocol"), S("channels"), S("time (us)"), "busbw (GB/s)", S("time of a call (us)"), S("busbw of a call (GB/s)")], rows),
        element("p", { class: "nccl-explorer-note", text: S("NCCL's own estimate (dashed) is what it chooses by; a call also pays a fixed cost per call, the pipeline's fill and the network's achievable bandwidth (solid), as {harness} measures them.", { harness: h }) }),
      );
      root.dataset.state = JSON.stringify({ collective: c, preset: pre.value, ranks: p, harness: h });
    }
    redraw();
  }

  // -- (c) bytes per rank per step of a schedule -------------------------------------------------
  function scheduleExplorer(root, m, opts) {
    const ctrl = element("div", { class: "nccl-explorer-controls" });
    const plots = element("div", { class: "nccl-explorer-plots" });
    const out = element("div", { class: "nccl-explorer-out", role: "status", "aria-live": "polite" });
    root.replaceChildren(ctrl, plots, out);
    const SCH = m.data.schedules;
    const coll = control(ctrl, "collective", S("collective"), Object.keys(SCH), opts.collective || "all_reduce", onCollective);
    const algo = control(ctrl, "algorithm", S("algorithm"), Object.keys(SCH[coll.value]), opts.algorithm || "ring", onAlgorithm);
    const ranks = control(ctrl, "ranks", S("ranks"), Object.keys(SCH[coll.value][algo.value]).map(Number), opts.ranks || 4, onAlgorithm);
    const chunks = control(ctrl, "chunks", S("pipeline pieces"), Object.keys(SCH[coll.value][algo.value][ranks.value]), "1", redraw);
    const size = control(ctrl, "size", S("size"), sizeChoices(), opts.size || 2 ** 20, redraw);
    let plot = null;
    function onCollective() {
      setOptions(algo, Object.keys(SCH[coll.value]), algo.value);
      onAlgorithm();
    }
    function onAlgorithm() {
      setOptions(ranks, Object.keys(SCH[coll.value][algo.value]), ranks.value);
      setOptions(chunks, Object.keys(SCH[coll.value][algo.value][ranks.value]), chunks.value);
      redraw();
    }
    function redraw() {
      if (plot) plot.destroy();
      const p = Number(ranks.value);
      const s = Number(size.value);
      const b = m.scheduleBytes(coll.value, algo.value, p, Number(chunks.value), s);
      const steps = b.sent.map((_, i) => i + 1);
      const host = element("div", { class: "nccl-explorer-plot", "data-plot": "schedule" });
      plots.replaceChildren(host);
      const series = [];
      // "rank" is the word in both languages (as in the schedule figures): not translated.
      for (let r = 0; r < p; r += 1) series.push({ label: `rank ${r}`, values: b.sent.map((row) => row[r] || null) });
      plot = chart(host, S("{collective} / {algorithm}, {ranks} ranks: bytes each rank sends per step", { collective: coll.value, algorithm: algo.value, ranks: p }), S("step"), S("bytes sent"), steps, series, { xLog: false });
      const rows = [];
      for (let r = 0; r < p; r += 1) {
        const sent = b.sent.map((row) => row[r]);
        const total = sent.reduce((x, y) => x + y, 0);
        rows.push({ attrs: { "data-rank": String(r), "data-sent": JSON.stringify(sent), "data-total": String(total) }, cells: [String(r)].concat(sent.map((x) => (x ? formatSize(x) : "\u00b7")), [formatSize(total)]) });
      }
      out.replaceChildren(
        element("p", { class: "nccl-explorer-summary", "data-steps": String(b.steps), text: S("{steps} steps; each cell is what the rank sends in that step (a collective of {size}).", { steps: b.steps, size: formatSize(s) }) }),
        table(["rank"].concat(steps.map((i) => S("step {number}", { number: i })), [S("total")]), rows)
      );
      root.dataset.state = JSON.stringify({ collective: coll.value, algorithm: algo.value, ranks: p, chunks: Number(chunks.value), size: s });
    }
    redraw();
  }

  // -- (d) a training step's communication --------------------------------------------------------
  function trainingExplorer(root, m, opts) {
    const ctrl = element("div", { class: "nccl-explorer-controls" });
    const plots = element("div", { class: "nccl-explorer-plots" });
    const out = element("div", { class: "nccl-explorer-out", role: "status", "aria-live": "polite" });
    root.replaceChildren(ctrl, plots, out);
    const T = m.training;
    const shapes = T.shapes.map((s) => s.name);
    const shape = control(ctrl, "model", S("model"), shapes, opts.model || shapes[1], redraw);
    const pre = control(ctrl, "preset", S("preset"), Object.keys(m.presets), opts.preset || "ib-ndr-2node", redraw);
    const ranks = control(ctrl, "ranks", S("group size"), m.data.model.rankChoices, opts.ranks || 8, redraw);
    const bytes = control(ctrl, "bytes", S("bytes per element"), [[2, "2 (bf16)"], [4, "4 (fp32)"]], 2, redraw);
    const sp = control(ctrl, "sequence_parallel", S("TP sequence parallel"), [["no", S("no")], ["yes", S("yes")]], "no", redraw);
    // Each strategy's key (data-strategy, the same in every language) and what the page calls it.
    const STRATEGY_NAMES = { DDP: "DDP", "FSDP / ZeRO-3": "FSDP / ZeRO-3", "tensor parallel": S("tensor parallel") };
    let plot = null;
    function strategies(sh, p, nb) {
      const params = T.parameters(sh);
      return {
        DDP: T.ddpCalls(params, p, nb),
        "FSDP / ZeRO-3": T.zero3Calls(params, p, sh.layers, nb, nb),
        "tensor parallel": T.tensorParallelCalls(sh, p, nb, sp.value === "yes"),
      };
    }
    function redraw() {
      if (plot) plot.destroy();
      const sh = T.shapes.find((s) => s.name === shape.value);
      const p = Number(ranks.value);
      const nb = Number(bytes.value);
      const now = strategies(sh, p, nb);
      const xs = m.data.model.rankChoices;
      const host = element("div", { class: "nccl-explorer-plot", "data-plot": "training" });
      plots.replaceChildren(host);
      const series = Object.keys(now).map((name) => ({ label: STRATEGY_NAMES[name], values: xs.map((q) => T.timeOnPreset(strategies(sh, q, nb)[name], pre.value) * 1e3) }));
      plot = chart(host, S("{model} on {preset}: communication per step if nothing overlaps", { model: sh.name, preset: pre.value }), S("ranks"), S("time (ms)"), xs, series, { xLog: false, marks: [[p, S("{ranks} ranks", { ranks: p })]] });
      const rows = Object.entries(now).map(([name, calls]) => {
        const t = T.timeOnPreset(calls, pre.value);
        const sent = T.bytesSentPerRank(calls);
        const n = T.totalCalls(calls);
        return { attrs: { "data-strategy": name, "data-calls": String(n), "data-bytes": String(sent), "data-time-s": String(t) }, cells: [STRATEGY_NAMES[name], String(n), formatSize(sent), fmt(t * 1e3)] };
      });
      const params = T.parameters(sh);
      out.replaceChildren(
        element("p", { class: "nccl-explorer-summary", "data-parameters": String(params), text: S("{model}: {parameters} billion parameters (12 L h\u00b2 + V h), {ranks} ranks per group, {bytes} bytes per element.", { model: sh.name, parameters: fmt(params / 1e9, 3), ranks: p, bytes: nb }) }),
        table([S("strategy"), S("collective calls per step"), S("bytes sent per rank"), S("time on preset (ms)")], rows)
      );
      root.dataset.state = JSON.stringify({ model: sh.name, preset: pre.value, ranks: p, bytes: nb, sp: sp.value });
    }
    redraw();
  }

  const KINDS = { algorithms: algorithmsExplorer, nccl: ncclExplorer, schedule: scheduleExplorer, training: trainingExplorer };

  function start() {
    const data = window.NCCL_COURSE_COST_DATA;
    if (!data || typeof uPlot === "undefined" || !window.NcclCostModel) return;
    const m = window.NcclCostModel.createCostModel(data);
    for (const root of document.querySelectorAll(".nccl-explorer")) {
      const opts = { ...root.dataset };
      if (opts.ranks) opts.ranks = Number(opts.ranks);
      if (opts.size) opts.size = Number(opts.size);
      KINDS[root.dataset.kind](root, m, opts);
      root.dataset.ready = "true";
    }
  }
  onReady(start);
})();
