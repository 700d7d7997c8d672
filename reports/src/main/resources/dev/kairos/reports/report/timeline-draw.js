// The timeline of the `kairos check --html` page, drawn: per node, per core, a processor lane
// (every execution slice, preemptions as separate slices of one activation), a row per SpM (start
// windows, executions, releases, deadlines, and the measured activations of a run log) and a row
// per service method (its BCC admission windows), over the span of time a view shows.
//
// The one renderer of the timeline: the interactive view of the page in a browser (timeline.js)
// draws every zoom and pan with it, and `kairos check` runs it when it writes the page, for the
// SVG shown where no script runs (the editors' panels among them). So it is plain functions from
// the JSON the page embeds (TimelineData) to markup, without the DOM, in the JavaScript both run:
// no classes and no `for (const ...)`, which the page's Java side (Rhino) does not take, and `let`
// rather than `const` below a function's top level, as Rhino evaluates a `const` in a loop body
// only once. TimelineRendererTest holds these.
var KairosTimeline = (function () {
  "use strict";
  const LABEL_WIDTH = 210;
  const RIGHT_PAD = 18;
  const TOP = 6;
  const LANE_HEIGHT = 30;
  const SPM_HEIGHT = 34;
  const SVM_HEIGHT = 26;
  const AXIS_HEIGHT = 28;
  const PX_PER_TICK = 90;
  /** The plot of the static view: a width per activation of the busiest row, within bounds. */
  const STATIC_PX_PER_ACTIVATION = 14;
  const STATIC_MIN_PLOT = 960;
  const STATIC_MAX_PLOT = 3600;
  /** Admission windows drawn per row at most; a wider view asks to zoom in. */
  const MAX_WINDOWS = 3000;
  const HARD = "#1f4e8c";
  const SOFT = "#8a63b8";
  const MEASURED = "#f08c00";
  const MISSED = "#d62828";
  const PALETTE = [
    "#1f4e8c",
    "#2a9d8f",
    "#8a63b8",
    "#c77700",
    "#3f7f3f",
    "#b83b5e",
    "#4a6fa5",
    "#7a6a2f",
    "#5e548e",
    "#2f6f6f",
  ];

  /** A duration for people: the largest unit with a whole part, at most three decimals. */
  function readable(ns) {
    const scales = [
      [3600e9, "h"],
      [60e9, "min"],
      [1e9, "s"],
      [1e6, "ms"],
      [1e3, "us"],
    ];
    for (let i = 0; i < scales.length; i++) {
      if (Math.abs(ns) >= scales[i][0]) {
        return String(Math.round((ns / scales[i][0]) * 1000) / 1000) + " " + scales[i][1];
      }
    }
    return String(Math.round(ns)) + " ns";
  }

  function esc(value) {
    const text = String(value);
    if (typeof value === "number" || !/[&<>"]/.test(text)) {
      return text;
    }
    return text
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }

  /** A coordinate, to a tenth of a pixel. */
  function px(value) {
    return String(Math.round(value * 10) / 10);
  }

  /** The markup of an SVG element; {@code content} is markup too (none: an empty element). */
  function element(name, attributes, content) {
    let markup = "<" + name;
    for (let key in attributes) {
      markup += " " + key + '="' + esc(attributes[key]) + '"';
    }
    return content === undefined || content === ""
      ? markup + "/>"
      : markup + ">" + content + "</" + name + ">";
  }

  function text(x, y, content, className, anchor) {
    const attributes = { x: x, y: y, class: className };
    if (anchor) {
      attributes["text-anchor"] = anchor;
    }
    return element("text", attributes, esc(content));
  }

  /** Ticks at 1, 2 or 5 x 10^k ns, at least PX_PER_TICK apart, labelled in the step's unit. */
  function ticks(from, to, plotWidth) {
    const wanted = ((to - from) * PX_PER_TICK) / plotWidth;
    let step = 1;
    for (let decade = 1; ; decade *= 10) {
      let found = [1, 2, 5].find((m) => m * decade >= wanted);
      if (found !== undefined) {
        step = found * decade;
        break;
      }
    }
    const units = [
      [1e9, "s"],
      [1e6, "ms"],
      [1e3, "us"],
      [1, "ns"],
    ];
    const unit = units.find((u) => step >= u[0]);
    const decimals = Math.max(0, Math.round(Math.log(unit[0] / step) / Math.LN10 + 0.49));
    const result = [];
    for (let t = Math.ceil(from / step) * step; t <= to && result.length < 400; t += step) {
      result.push({ ns: t, label: (t / unit[0]).toFixed(decimals) + " " + unit[1] });
    }
    return result;
  }

  function activationTip(name, a, response) {
    const lines = [
      name + " seq=" + a.seq + " (analysed)",
      "release      " + readable(a.releaseNs),
      "start window " + readable(a.openNs) + " .. " + readable(a.closeNs),
    ];
    lines.push("start        " + (a.startNs >= 0 ? readable(a.startNs) : "-"));
    lines.push("finish       " + (a.finishNs >= 0 ? readable(a.finishNs) : "-"));
    if (a.finishNs >= 0) {
      lines.push(
        "response     " + readable(a.finishNs - a.openNs) + " (from the window's opening)",
      );
    }
    lines.push("deadline     " + readable(a.deadlineNs));
    if (a.finishNs >= 0) {
      lines.push("slack        " + readable(a.deadlineNs - a.finishNs));
    }
    if (a.slices.length > 1) {
      lines.push("preempted    " + (a.slices.length - 1) + " time(s)");
    }
    if (response !== undefined) {
      lines.push("bound        " + (response >= 0 ? readable(response) : "> deadline"));
    }
    lines.push(
      "outcome      " +
        {
          met: "met",
          "window-missed": "START WINDOW MISSED",
          "deadline-missed": "DEADLINE MISSED",
          open: "decided after the end of the view",
        }[a.outcome],
    );
    return lines.join("\n");
  }

  function measuredTip(source, m) {
    const lines = [
      m.name + " seq=" + m.seq + " (measured, " + source + ":" + m.line + ")",
      "release      " + readable(m.releaseNs),
      "start        " + readable(m.startNs),
    ];
    if (m.window === "met") {
      lines.push("finish       " + readable(m.finishNs));
      lines.push(
        "response     " + readable(m.finishNs - m.openNs) + " (from the window's opening)",
      );
    }
    if (m.deadlineNs >= 0) {
      lines.push("deadline     " + readable(m.deadlineNs));
      if (m.window === "met") {
        lines.push("slack        " + readable(m.deadlineNs - m.finishNs));
      }
    }
    lines.push("outcome      window=" + m.window + " deadline=" + m.deadline);
    return lines.join("\n");
  }

  /** The rows of a node's timeline, top to bottom: per core its lane, its SpMs, its SvMs. */
  function rows(node) {
    const result = [];
    for (let c = 0; c < node.cores.length; c++) {
      let core = node.cores[c];
      result.push({ kind: "cpu", core: core, height: LANE_HEIGHT });
      core.spms.forEach((spm, i) => {
        result.push({
          kind: "spm",
          core: core,
          spm: spm,
          color: PALETTE[i % PALETTE.length],
          height: SPM_HEIGHT,
        });
      });
      for (let s = 0; s < core.svms.length; s++) {
        result.push({ kind: "svm", core: core, svm: core.svms[s], height: SVM_HEIGHT });
      }
    }
    return result;
  }

  function measuredOf(node) {
    return node.measured ? node.measured.activations : [];
  }

  /** The end of everything there is to show: the analysed table and the measured run. */
  function fullEnd(node) {
    let end = node.endNs;
    for (let m of measuredOf(node)) {
      end = Math.max(end, m.finishNs, m.deadlineNs);
    }
    return Math.max(1, end);
  }

  /** What a view shows first: the analysed table. */
  function initialView(node) {
    return { from: 0, to: node.endNs > 0 ? node.endNs : fullEnd(node) };
  }

  /** What the analysed table covers, and what of the run is drawn, in words. */
  function extentText(node) {
    const cores = node.cores.map((core) => {
      let hyperperiod = "one hyperperiod (" + readable(core.hyperperiodNs) + ")";
      if (core.extent === "hyperperiod" && core.endNs !== core.hyperperiodNs) {
        hyperperiod =
          "the first releases up to " +
          readable(core.endNs - core.hyperperiodNs) +
          ", then " +
          hyperperiod;
      }
      let what = {
        hyperperiod: hyperperiod,
        all_activations: "every activation (" + core.activations + ")",
        beginning:
          "the beginning of " +
          (core.hyperperiodNs > 0
            ? "the hyperperiod of " + readable(core.hyperperiodNs)
            : core.beyond64Bits
              ? "a hyperperiod beyond 64 bits"
              : "the table") +
          ", its first " +
          core.activations +
          " activations (a longer view would not be readable)",
      }[core.extent];
      return (
        "core " +
        core.core +
        ": " +
        (what || "no spontaneous methods") +
        (core.untracedSpms > 0
          ? ", and " + core.untracedSpms + " more SpMs played but not drawn (of lowest priority)"
          : "")
      );
    });
    const run = node.measured;
    return (
      "Analysed: " +
      cores.join("; ") +
      (run
        ? ". Measured: " +
          run.total +
          " activations from " +
          run.source +
          (run.total > run.activations.length
            ? ", the first " + run.activations.length + " drawn"
            : "")
        : "") +
      "."
    );
  }

  function legendHtml(node) {
    return (
      '<span><i class="swatch sw-cpu"></i>processor lane: execution per ' +
      "method, a dashed link joins the slices of a preempted activation</span>" +
      '<span><i class="swatch sw-window"></i>start window</span>' +
      '<span><i class="swatch sw-hard"></i>hard</span><span><i class="swatch sw-soft"></i>soft' +
      '</span><span><i class="swatch sw-miss"></i>missed deadline</span>' +
      "<span>&#8593; release</span><span>&#8595; deadline</span>" +
      '<span><i class="swatch sw-admit"></i>SvM admitted at once (BCC)</span>' +
      '<span><i class="swatch sw-blocked"></i>SvM waits for admission</span>' +
      (node.measured ? '<span><i class="swatch sw-measured"></i>measured</span>' : "")
    );
  }

  /** The text of a view's range. */
  function rangeText(view, end) {
    return (
      "showing " +
      readable(view.from) +
      " .. " +
      readable(view.to) +
      " (" +
      readable(view.to - view.from) +
      ") of 0 .. " +
      readable(end)
    );
  }

  /**
   * A drawing in progress: the view ({@code from} .. {@code to} ns over {@code width} px) and the
   * tooltips so far. Where no script runs ({@code titles}), each tooltip is an SVG title as well.
   */
  function canvas(view) {
    const plotWidth = view.width - LABEL_WIDTH - RIGHT_PAD;
    const c = {
      from: view.from,
      to: view.to,
      width: view.width,
      plotWidth: plotWidth,
      tips: [],
      titles: view.titles === true,
    };
    c.x = (ns) => LABEL_WIDTH + ((ns - c.from) * plotWidth) / (c.to - c.from);
    c.visible = (from, to) => to >= c.from && from <= c.to;
    /** Registers a tooltip: its index for data-tip, and its title where no script runs. */
    c.tip = (attributes, content) => {
      c.tips.push(content);
      attributes["data-tip"] = String(c.tips.length - 1);
      return c.titles ? element("title", {}, esc(content)) : "";
    };
    /**
     * A rectangle [from, to) in the plot, clipped to the view, at least a pixel wide; nothing when
     * it lies outside the view.
     */
    c.span = (from, to, top, height, attributes, tip) => {
      if (!c.visible(from, to)) {
        return "";
      }
      let left = Math.max(c.x(from), LABEL_WIDTH - 2);
      let right = Math.min(c.x(to), c.width);
      let rect = { x: px(left), y: top, width: px(Math.max(1, right - left)), height: height };
      for (let key in attributes) {
        rect[key] = attributes[key];
      }
      return element("rect", rect, tip === undefined ? "" : c.tip(rect, tip));
    };
    return c;
  }

  function cpuRow(c, row, y) {
    const core = row.core;
    const labels =
      text(8, y + 13, "core " + core.core, "kt-label kt-lane-label") +
      text(8, y + 25, core.instances.join(", ") || "idle", "kt-sub");
    let lane = "";
    core.spms.forEach((spm, i) => {
      let color = PALETTE[i % PALETTE.length];
      for (let a of spm.activations) {
        if (a.slices.length === 0 || !c.visible(a.slices[0][0], a.slices[a.slices.length - 1][1])) {
          continue;
        }
        let group = core.core + ":" + spm.name + ":" + a.seq;
        let content = activationTip(spm.name, a, spm.responseNs);
        a.slices.forEach((slice, k) => {
          if (k > 0 && c.visible(a.slices[k - 1][1], slice[0])) {
            let from = Math.max(c.x(a.slices[k - 1][1]), LABEL_WIDTH);
            let to = Math.min(c.x(slice[0]), c.width);
            lane += element("path", {
              class: "kt-preempt",
              "data-act": group,
              d: "M" + px(from) + "," + (y + 4) + "H" + px(to),
              stroke: color,
              "stroke-dasharray": "3 2",
              "stroke-width": 1.5,
              fill: "none",
            });
          }
          if (!c.visible(slice[0], slice[1])) {
            return;
          }
          lane += c.span(
            slice[0],
            slice[1],
            y + 6,
            LANE_HEIGHT - 12,
            {
              class: "kt-slice",
              fill: color,
              stroke: "#fff",
              "stroke-width": 0.5,
              "data-act": group,
              "data-method": spm.name,
              "data-slices": a.slices.length,
            },
            content +
              "\nslice        " +
              (k + 1) +
              " of " +
              a.slices.length +
              ": " +
              readable(slice[0]) +
              " .. " +
              readable(slice[1]),
          );
        });
      }
    });
    return {
      labels: labels,
      plot: element("g", { class: "kt-lane", "data-core": core.core }, lane),
    };
  }

  /** An upward arrow at a release, a downward one at a deadline. */
  function arrow(x, from, to, attributes) {
    const head = to < from ? 4 : -4;
    attributes.d =
      "M" +
      px(x) +
      "," +
      from +
      "V" +
      to +
      "M" +
      px(x - 3) +
      "," +
      (to + head) +
      "L" +
      px(x) +
      "," +
      to +
      "L" +
      px(x + 3) +
      "," +
      (to + head);
    attributes["stroke-width"] = 1.2;
    attributes.fill = "none";
    return element("path", attributes);
  }

  /** A cross of half-width {@code r} centred at (x, y). */
  function cross(x, y, r, attributes) {
    attributes.d =
      "M" +
      px(x - r) +
      "," +
      (y - r) +
      "L" +
      px(x + r) +
      "," +
      (y + r) +
      "M" +
      px(x - r) +
      "," +
      (y + r) +
      "L" +
      px(x + r) +
      "," +
      (y - r);
    attributes.fill = "none";
    return element("path", attributes);
  }

  /** An analysed activation: its start window, executions, release, deadline, missed window. */
  function activationMark(c, row, a, top, bottom, hatchId) {
    const spm = row.spm;
    const missed = a.outcome === "deadline-missed";
    const attributes = {
      class: "kt-activation " + a.outcome,
      "data-act": row.core.core + ":" + spm.name + ":" + a.seq,
    };
    let parts = c.tip(attributes, activationTip(spm.name, a, spm.responseNs));
    parts += c.span(a.openNs, a.closeNs, top, bottom - top, {
      class: "kt-window",
      fill: "#cfe8cf",
    });
    for (let slice of a.slices) {
      parts += c.span(slice[0], slice[1], top + 7, bottom - top - 14, {
        class: "kt-exec",
        fill: missed ? "url(#" + hatchId + ")" : spm.criticality === "hard" ? HARD : SOFT,
      });
    }
    parts += arrow(c.x(a.releaseNs), bottom, top, { class: "kt-release", stroke: "#1d2430" });
    parts += arrow(c.x(a.deadlineNs), top, bottom, {
      class: "kt-deadline",
      stroke: missed ? MISSED : "#7a1f1f",
    });
    if (a.outcome === "window-missed") {
      parts += cross(c.x(a.closeNs), (top + bottom) / 2, 4, {
        class: "kt-window-miss",
        stroke: MISSED,
        "stroke-width": 2,
      });
    }
    return element("g", attributes, parts);
  }

  /** A measured activation of the run, drawn at the foot of its SpM's row. */
  function measuredMark(c, run, m, bottom) {
    const attributes = { class: "kt-measured " + m.window, "data-seq": m.seq };
    let parts = c.tip(attributes, measuredTip(run.source, m));
    if (m.window === "met") {
      parts += c.span(m.startNs, m.finishNs, bottom - 6, 5, {
        fill: MEASURED,
        stroke: "#8a4f00",
        "stroke-width": 0.5,
      });
    } else {
      parts += cross(c.x(m.startNs), bottom - 4, 4, { stroke: MEASURED, "stroke-width": 2 });
    }
    parts += element("path", {
      d: "M" + px(c.x(m.releaseNs)) + "," + (bottom - 9) + "V" + bottom,
      stroke: MEASURED,
      "stroke-width": 1.5,
    });
    return element("g", attributes, parts);
  }

  function spmRow(c, node, row, y, hatchId) {
    const spm = row.spm;
    const top = y + 4;
    const bottom = y + SPM_HEIGHT - 4;
    const labels =
      text(
        10,
        y + 14,
        spm.name.length > 30 ? spm.name.slice(0, 29) + "\u2026" : spm.name,
        "kt-label",
      ) +
      element("rect", { x: 1, y: y + 6, width: 4, height: 10, fill: row.color }) +
      text(
        10,
        y + 27,
        spm.criticality +
          (spm.band !== undefined ? ", band " + spm.band : "") +
          (spm.periodNs ? ", every " + readable(spm.periodNs) : ""),
        "kt-sub",
      );
    let items = "";
    for (let a of spm.activations) {
      if (c.visible(a.releaseNs, Math.max(a.closeNs, a.deadlineNs, a.finishNs))) {
        items += activationMark(c, row, a, top, bottom, hatchId);
      }
    }
    for (let m of measuredOf(node)) {
      if (m.name === spm.name && c.visible(m.releaseNs, Math.max(m.finishNs, m.deadlineNs))) {
        items += measuredMark(c, node.measured, m, bottom);
      }
    }
    return { labels: labels, plot: element("g", { class: "kt-spm", "data-spm": spm.name }, items) };
  }

  function svmRow(c, row, y) {
    const svm = row.svm;
    const top = y + 5;
    const height = SVM_HEIGHT - 10;
    const labels =
      text(10, y + 11, svm.name, "kt-label") +
      text(
        10,
        y + 22,
        "SvM, GCT " + readable(svm.gctNs) + ", slot " + readable(svm.slotNs),
        "kt-sub",
      );
    const response = svm.responseNs >= 0 ? readable(svm.responseNs) : "unbounded";
    const facts =
      "\nslot " +
      readable(svm.slotNs) +
      " (its response once admitted)\n" +
      "GCT " +
      readable(svm.gctNs) +
      "\nworst response, wait included: " +
      response;
    const whole = (fill, content) =>
      c.span(
        c.from,
        c.to,
        top,
        height,
        { fill: fill, class: "kt-admission" },
        svm.name + ": " + content + facts,
      );
    const drawnRow = (content) => ({
      labels: labels,
      plot: element("g", { class: "kt-svm", "data-svm": svm.name }, content),
    });
    if (!svm.conflicts) {
      return drawnRow(
        whole("#b9e3c6", "no conflicting SpM: a request is admitted at once, at any time"),
      );
    }
    if (svm.longestWaitNs < 0) {
      return drawnRow(whole("#f4c7c7", "MAY NEVER BE ADMITTED (BCC leaves no room)"));
    }
    if (svm.cycleNs <= 0) {
      return drawnRow(
        whole(
          "#b9e3c6",
          "admitted at once except next to one-shot SpMs; waits at most " +
            readable(svm.longestWaitNs),
        ),
      );
    }
    let items = whole(
      "#e3e6eb",
      "a request arriving here waits for admission (BCC), at most " + readable(svm.longestWaitNs),
    );
    const cycle = svm.cycleNs;
    const first = Math.floor(c.from / cycle) - 1;
    const last = Math.floor(c.to / cycle);
    if ((last - first + 1) * svm.windows.length > MAX_WINDOWS) {
      return drawnRow(
        items + text(LABEL_WIDTH + 6, y + 17, "zoom in to see the admission windows", "kt-sub"),
      );
    }
    for (let k = first; k <= last; k++) {
      for (let w of svm.windows) {
        let from = k * cycle + w[0];
        let to = k * cycle + w[1];
        if (!c.visible(from, to)) {
          continue;
        }
        items += c.span(
          from,
          to,
          top,
          height,
          { class: "kt-admit", fill: "#b9e3c6", stroke: "#6fb587", "stroke-width": 0.5 },
          svm.name +
            ": a request arriving in " +
            readable(from) +
            " .. " +
            readable(to) +
            " is admitted at once" +
            facts,
        );
      }
    }
    return drawnRow(items);
  }

  /**
   * A node's timeline over a view ({@code from}, {@code to} in ns, {@code width} in px, and
   * {@code titles} where no script runs): the SVG's markup and the texts of its tooltips, which its
   * elements name by index in data-tip.
   */
  function draw(node, view) {
    const c = canvas(view);
    const all = rows(node);
    const height = TOP + all.reduce((sum, row) => sum + row.height, 0) + AXIS_HEIGHT;
    const clipId = "kt-clip-" + node.index;
    const hatchId = "kt-miss-" + node.index;
    const defs = element(
      "defs",
      {},
      element(
        "clipPath",
        { id: clipId },
        element("rect", { x: LABEL_WIDTH, y: 0, width: c.plotWidth, height: height }),
      ) +
        element(
          "pattern",
          {
            id: hatchId,
            width: 6,
            height: 6,
            patternUnits: "userSpaceOnUse",
            patternTransform: "rotate(45)",
          },
          element("rect", { width: 6, height: 6, fill: MISSED }) +
            element("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#fff", "stroke-width": 2.5 }),
        ),
    );
    let background = "";
    let plot = "";
    let labels = "";
    let y = TOP;
    all.forEach((row, r) => {
      background += element("rect", {
        x: 0,
        y: y,
        width: c.width,
        height: row.height,
        fill: row.kind === "cpu" ? "#eef1f5" : r % 2 === 0 ? "#f7f9fb" : "#ffffff",
      });
      let drawn;
      if (row.kind === "cpu") {
        background += element("line", { x1: 0, y1: y, x2: c.width, y2: y, stroke: "#c3cad5" });
        drawn = cpuRow(c, row, y);
      } else if (row.kind === "spm") {
        drawn = spmRow(c, node, row, y, hatchId);
      } else {
        drawn = svmRow(c, row, y);
      }
      plot += drawn.plot;
      labels += drawn.labels;
      y += row.height;
    });
    const axisY = y;
    let grid = "";
    let axis = "";
    for (let tick of ticks(c.from, c.to, c.plotWidth)) {
      let x = px(c.x(tick.ns));
      grid += element("line", { x1: x, y1: TOP, x2: x, y2: axisY + 5, stroke: "#d8dde5" });
      axis += text(x, axisY + 18, tick.label, "kt-tick", "middle");
    }
    axis += element("line", {
      x1: LABEL_WIDTH,
      y1: axisY,
      x2: c.width - RIGHT_PAD,
      y2: axisY,
      stroke: "#1d2430",
    });
    const svg = element(
      "svg",
      {
        xmlns: "http://www.w3.org/2000/svg",
        class: "kt-svg",
        role: "img",
        "aria-label": "timeline of node " + node.name + ", " + rangeText(c, fullEnd(node)),
        width: c.width,
        height: height,
        viewBox: "0 0 " + c.width + " " + height,
      },
      defs +
        element("g", { class: "kt-rows" }, background) +
        element("g", { class: "kt-grid" }, grid) +
        element("g", { class: "kt-items", "clip-path": "url(#" + clipId + ")" }, plot) +
        element("g", { class: "kt-labels" }, labels) +
        element("g", { class: "kt-axis" }, axis),
    );
    return { svg: svg, tips: c.tips };
  }

  /**
   * The timeline where no script runs: the analysed table whole, each activation a few pixels
   * wide, its tooltips as SVG titles; what it covers above it, the legend below.
   */
  function staticHtml(node) {
    let busiest = 1;
    for (let core of node.cores) {
      for (let spm of core.spms) {
        busiest = Math.max(busiest, spm.activations.length);
      }
    }
    const plot = Math.max(
      STATIC_MIN_PLOT,
      Math.min(STATIC_MAX_PLOT, busiest * STATIC_PX_PER_ACTIVATION),
    );
    const view = initialView(node);
    view.width = LABEL_WIDTH + plot + RIGHT_PAD;
    view.titles = true;
    return (
      '<p class="note kt-extent">' +
      esc(extentText(node)) +
      "</p>\n" +
      '<div class="scroll">\n' +
      draw(node, view).svg +
      "\n</div>\n" +
      '<p class="legend kt-legend">' +
      legendHtml(node) +
      "</p>\n"
    );
  }

  return {
    LABEL_WIDTH: LABEL_WIDTH,
    RIGHT_PAD: RIGHT_PAD,
    readable: readable,
    fullEnd: fullEnd,
    initialView: initialView,
    extentText: extentText,
    legendHtml: legendHtml,
    rangeText: rangeText,
    draw: draw,
    staticHtml: staticHtml,
    /** For the page's Java side: the page's JSON, parsed once for all its nodes. */
    parse: (json) => JSON.parse(json),
  };
})();
