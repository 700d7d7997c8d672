// The interactive timeline of the `kairos check --html` page: per node, per core, a processor lane
// (every execution slice, preemptions as separate slices of one activation), a row per SpM (start
// windows, executions, releases, deadlines, and the measured activations of a run log), a row per
// service method (its BCC admission windows); zoom and pan with the wheel, a drag, the buttons or
// the keys + - 0 and the arrows; a tooltip with each activation's numbers. Plain DOM and SVG,
// drawn from the JSON the page embeds (TimelineData): nothing is fetched.
(function () {
  "use strict";
  const source = document.getElementById("kairos-timeline-data");
  if (!source) {
    return;
  }
  const data = JSON.parse(source.textContent);
  document.documentElement.classList.add("kt-js");

  const SVG = "http://www.w3.org/2000/svg";
  const LABEL_WIDTH = 210;
  const RIGHT_PAD = 18;
  const TOP = 6;
  const LANE_HEIGHT = 30;
  const SPM_HEIGHT = 34;
  const SVM_HEIGHT = 26;
  const AXIS_HEIGHT = 28;
  const PX_PER_TICK = 90;
  const MIN_SPAN_NS = 100;
  /** Admission windows drawn per row at most; a wider view asks to zoom in. */
  const MAX_WINDOWS = 3000;
  const HARD = "#1f4e8c";
  const SOFT = "#8a63b8";
  const MEASURED = "#f08c00";
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

  const tip = document.createElement("div");
  tip.className = "kt-tip";
  tip.setAttribute("role", "tooltip");
  document.body.appendChild(tip);

  /** A duration for people: the largest unit with a whole part, at most three decimals. */
  function readable(ns) {
    const scales = [
      [3600e9, "h"],
      [60e9, "min"],
      [1e9, "s"],
      [1e6, "ms"],
      [1e3, "us"],
    ];
    for (const [scale, unit] of scales) {
      if (Math.abs(ns) >= scale) {
        return String(Math.round((ns / scale) * 1000) / 1000) + " " + unit;
      }
    }
    return String(Math.round(ns)) + " ns";
  }

  function element(name, attributes, parent) {
    const node = document.createElementNS(SVG, name);
    for (const key in attributes) {
      node.setAttribute(key, attributes[key]);
    }
    if (parent) {
      parent.appendChild(node);
    }
    return node;
  }

  function text(parent, x, y, content, className) {
    const node = element("text", { x: x, y: y }, parent);
    if (className) {
      node.setAttribute("class", className);
    }
    node.textContent = content;
    return node;
  }

  /** Ticks at 1, 2 or 5 x 10^k ns, at least PX_PER_TICK apart, labelled in the step's unit. */
  function ticks(from, to, plotWidth) {
    const wanted = ((to - from) * PX_PER_TICK) / plotWidth;
    let step = 1;
    for (let decade = 1; ; decade *= 10) {
      const found = [1, 2, 5].find((m) => m * decade >= wanted);
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
    const [unit, name] = units.find(([u]) => step >= u);
    const decimals = Math.max(0, Math.round(Math.log10(unit / step) + 0.49));
    const result = [];
    for (let t = Math.ceil(from / step) * step; t <= to && result.length < 400; t += step) {
      result.push({ ns: t, label: (t / unit).toFixed(decimals) + " " + name });
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

  class Timeline {
    constructor(host, node) {
      this.host = host;
      this.node = node;
      this.tips = [];
      this.rows = [];
      const measured = node.measured ? node.measured.activations : [];
      let end = node.endNs;
      for (const m of measured) {
        end = Math.max(end, m.finishNs, m.deadlineNs);
      }
      this.fullEnd = Math.max(1, end);
      this.from = 0;
      this.to = node.endNs > 0 ? node.endNs : this.fullEnd;
      this.measuredByName = new Map();
      for (const m of measured) {
        if (!this.measuredByName.has(m.name)) {
          this.measuredByName.set(m.name, []);
        }
        this.measuredByName.get(m.name).push(m);
      }
      for (const core of node.cores) {
        this.rows.push({ kind: "cpu", core: core, height: LANE_HEIGHT });
        core.spms.forEach((spm, i) => {
          this.rows.push({
            kind: "spm",
            core: core,
            spm: spm,
            color: PALETTE[i % PALETTE.length],
            height: SPM_HEIGHT,
          });
        });
        for (const svm of core.svms) {
          this.rows.push({ kind: "svm", core: core, svm: svm, height: SVM_HEIGHT });
        }
      }
      this.build();
      this.render();
    }

    build() {
      const bar = document.createElement("div");
      bar.className = "kt-toolbar";
      const buttons = [
        ["kt-zoom-in", "+", "zoom in (+)", () => this.zoom(0.5)],
        ["kt-zoom-out", "\u2212", "zoom out (-)", () => this.zoom(2)],
        ["kt-reset", "0", "show the whole timeline (0)", () => this.reset()],
        ["kt-left", "\u2190", "pan left (\u2190)", () => this.pan(-0.25)],
        ["kt-right", "\u2192", "pan right (\u2192)", () => this.pan(0.25)],
      ];
      for (const [cls, label, title, action] of buttons) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = cls;
        button.textContent = label;
        button.title = title;
        button.addEventListener("click", action);
        bar.appendChild(button);
      }
      this.range = document.createElement("span");
      this.range.className = "kt-range";
      bar.appendChild(this.range);
      const hint = document.createElement("span");
      hint.className = "kt-hint";
      hint.textContent = "wheel: zoom \u00b7 drag: pan \u00b7 keys + - 0 \u2190 \u2192";
      bar.appendChild(hint);
      this.host.appendChild(bar);
      const extent = document.createElement("p");
      extent.className = "note kt-extent";
      extent.textContent =
        "Analysed: " +
        this.node.cores
          .map((core) => {
            const what = {
              hyperperiod: "one hyperperiod (" + readable(core.hyperperiodNs) + ")",
              all_activations: "every activation",
              beginning:
                "the beginning of the table, up to " +
                readable(core.endNs) +
                " (a longer view would not be readable)",
            }[core.extent];
            return (
              "core " +
              core.core +
              ": " +
              (what || "no spontaneous methods") +
              (core.untracedSpms > 0
                ? ", " + core.untracedSpms + " SpMs of lowest priority not drawn"
                : "")
            );
          })
          .join("; ") +
        (this.node.measured
          ? ". Measured: " +
            this.node.measured.total +
            " activations from " +
            this.node.measured.source +
            (this.node.measured.total > this.node.measured.activations.length
              ? ", the first " + this.node.measured.activations.length + " drawn"
              : "")
          : "") +
        ".";
      this.host.appendChild(extent);

      this.plot = document.createElement("div");
      this.plot.className = "kt-plot";
      this.plot.tabIndex = 0;
      this.plot.setAttribute("aria-label", "timeline of node " + this.node.name);
      this.svg = element("svg", { class: "kt-svg", role: "img" }, this.plot);
      this.host.appendChild(this.plot);

      const legend = document.createElement("p");
      legend.className = "legend kt-legend";
      legend.innerHTML =
        '<span><i class="swatch sw-cpu"></i>processor lane: execution per ' +
        "method, a dashed link joins the slices of a preempted activation</span>" +
        '<span><i class="swatch sw-window"></i>start window</span>' +
        '<span><i class="swatch sw-hard"></i>hard</span><span><i class="swatch sw-soft"></i>soft' +
        '</span><span><i class="swatch sw-miss"></i>missed deadline</span>' +
        "<span>&#8593; release</span><span>&#8595; deadline</span>" +
        '<span><i class="swatch sw-admit"></i>SvM admitted at once (BCC)</span>' +
        '<span><i class="swatch sw-blocked"></i>SvM waits for admission</span>' +
        (this.node.measured ? '<span><i class="swatch sw-measured"></i>measured</span>' : "");
      this.host.appendChild(legend);

      this.plot.addEventListener(
        "wheel",
        (event) => {
          event.preventDefault();
          if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
            const delta = event.shiftKey ? event.deltaY : event.deltaX;
            this.pan(delta / Math.max(1, this.plotWidth()));
            return;
          }
          this.zoom(Math.exp(event.deltaY * 0.002), this.nsAt(event.clientX));
        },
        { passive: false },
      );
      this.plot.addEventListener("pointerdown", (event) => {
        if (event.button !== 0) {
          return;
        }
        this.drag = { x: event.clientX, from: this.from, to: this.to, moved: false };
        this.plot.setPointerCapture(event.pointerId);
      });
      this.plot.addEventListener("pointermove", (event) => {
        if (this.drag) {
          const dx = event.clientX - this.drag.x;
          if (Math.abs(dx) > 2) {
            this.drag.moved = true;
            this.plot.classList.add("kt-dragging");
            this.hideTip();
          }
          if (this.drag.moved) {
            const shift = (-dx * (this.drag.to - this.drag.from)) / this.plotWidth();
            this.show(this.drag.from + shift, this.drag.to + shift);
          }
          return;
        }
        this.hover(event);
      });
      const endDrag = () => {
        this.drag = null;
        this.plot.classList.remove("kt-dragging");
      };
      this.plot.addEventListener("pointerup", endDrag);
      this.plot.addEventListener("pointercancel", endDrag);
      this.plot.addEventListener("pointerleave", () => this.hideTip());
      this.plot.addEventListener("keydown", (event) => {
        const actions = {
          "+": () => this.zoom(0.5),
          "=": () => this.zoom(0.5),
          "-": () => this.zoom(2),
          _: () => this.zoom(2),
          0: () => this.reset(),
          ArrowLeft: () => this.pan(-0.1),
          ArrowRight: () => this.pan(0.1),
        };
        const action = actions[event.key];
        if (action && !event.ctrlKey && !event.metaKey && !event.altKey) {
          event.preventDefault();
          action();
        }
      });
      window.addEventListener("resize", () => this.render());
    }

    width() {
      return Math.max(LABEL_WIDTH + 200, this.plot.clientWidth);
    }

    plotWidth() {
      return this.width() - LABEL_WIDTH - RIGHT_PAD;
    }

    x(ns) {
      return LABEL_WIDTH + ((ns - this.from) * this.plotWidth()) / (this.to - this.from);
    }

    nsAt(clientX) {
      const left = this.plot.getBoundingClientRect().left;
      const px = Math.min(Math.max(clientX - left - LABEL_WIDTH, 0), this.plotWidth());
      return this.from + (px * (this.to - this.from)) / this.plotWidth();
    }

    zoom(factor, center) {
      const span = this.to - this.from;
      const wanted = Math.min(Math.max(span * factor, MIN_SPAN_NS), this.fullEnd);
      const at = center === undefined ? this.from + span / 2 : center;
      const from = at - ((at - this.from) * wanted) / span;
      this.show(from, from + wanted);
    }

    pan(fraction) {
      const shift = (this.to - this.from) * fraction;
      this.show(this.from + shift, this.to + shift);
    }

    reset() {
      this.show(0, this.fullEnd);
    }

    /** Shows [from, to], kept inside [0, fullEnd]. */
    show(from, to) {
      const span = Math.min(to - from, this.fullEnd);
      from = Math.min(Math.max(from, 0), this.fullEnd - span);
      this.from = from;
      this.to = from + span;
      this.render();
    }

    tipIndex(content) {
      this.tips.push(content);
      return String(this.tips.length - 1);
    }

    hover(event) {
      const target = event.target.closest ? event.target.closest("[data-tip]") : null;
      if (this.highlighted) {
        this.highlighted.forEach((node) => node.classList.remove("kt-hl"));
        this.highlighted = null;
      }
      if (!target) {
        this.hideTip();
        return;
      }
      const group = target.getAttribute("data-act");
      if (group) {
        this.highlighted = Array.from(this.svg.querySelectorAll('[data-act="' + group + '"]'));
        this.highlighted.forEach((node) => node.classList.add("kt-hl"));
      }
      tip.textContent = this.tips[Number(target.getAttribute("data-tip"))];
      tip.style.display = "block";
      const width = tip.offsetWidth;
      const height = tip.offsetHeight;
      const left = Math.min(event.clientX + 14, window.innerWidth - width - 4);
      const top =
        event.clientY + 16 + height > window.innerHeight
          ? event.clientY - height - 10
          : event.clientY + 16;
      tip.style.left = Math.max(4, left) + "px";
      tip.style.top = Math.max(4, top) + "px";
    }

    hideTip() {
      tip.style.display = "none";
    }

    render() {
      const svg = this.svg;
      while (svg.firstChild) {
        svg.removeChild(svg.firstChild);
      }
      this.tips = [];
      this.highlighted = null;
      const width = this.width();
      const height = TOP + this.rows.reduce((sum, row) => sum + row.height, 0) + AXIS_HEIGHT;
      svg.setAttribute("width", width);
      svg.setAttribute("height", height);
      svg.setAttribute("viewBox", "0 0 " + width + " " + height);
      const defs = element("defs", {}, svg);
      const clipId = "kt-clip-" + this.node.index;
      element(
        "rect",
        { x: LABEL_WIDTH, y: 0, width: this.plotWidth(), height: height },
        element("clipPath", { id: clipId }, defs),
      );
      const hatchId = "kt-miss-" + this.node.index;
      const hatch = element(
        "pattern",
        {
          id: hatchId,
          width: 6,
          height: 6,
          patternUnits: "userSpaceOnUse",
          patternTransform: "rotate(45)",
        },
        defs,
      );
      element("rect", { width: 6, height: 6, fill: "#d62828" }, hatch);
      element("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#fff", "stroke-width": 2.5 }, hatch);

      const background = element("g", { class: "kt-rows" }, svg);
      const grid = element("g", { class: "kt-grid" }, svg);
      const plot = element("g", { class: "kt-items", "clip-path": "url(#" + clipId + ")" }, svg);
      const labels = element("g", { class: "kt-labels" }, svg);
      let y = TOP;
      this.rows.forEach((row, r) => {
        element(
          "rect",
          {
            x: 0,
            y: y,
            width: width,
            height: row.height,
            fill: row.kind === "cpu" ? "#eef1f5" : r % 2 === 0 ? "#f7f9fb" : "#ffffff",
          },
          background,
        );
        if (row.kind === "cpu") {
          element("line", { x1: 0, y1: y, x2: width, y2: y, stroke: "#c3cad5" }, background);
          this.cpuRow(plot, labels, row, y);
        } else if (row.kind === "spm") {
          this.spmRow(plot, labels, row, y, hatchId);
        } else {
          this.svmRow(plot, labels, row, y);
        }
        y += row.height;
      });
      const axisY = y;
      const axis = element("g", { class: "kt-axis" }, svg);
      for (const tick of ticks(this.from, this.to, this.plotWidth())) {
        const x = this.x(tick.ns);
        element("line", { x1: x, y1: TOP, x2: x, y2: axisY + 5, stroke: "#d8dde5" }, grid);
        const label = text(axis, x, axisY + 18, tick.label, "kt-tick");
        label.setAttribute("text-anchor", "middle");
      }
      element(
        "line",
        { x1: LABEL_WIDTH, y1: axisY, x2: width - RIGHT_PAD, y2: axisY, stroke: "#1d2430" },
        axis,
      );
      this.range.textContent =
        "showing " +
        readable(this.from) +
        " .. " +
        readable(this.to) +
        " (" +
        readable(this.to - this.from) +
        ") of 0 .. " +
        readable(this.fullEnd);
      this.range.setAttribute("data-from-ns", String(Math.round(this.from)));
      this.range.setAttribute("data-to-ns", String(Math.round(this.to)));
    }

    visible(from, to) {
      return to >= this.from && from <= this.to;
    }

    /**
     * A rectangle [from, to) in the plot, clipped to the view, at least a pixel wide; nothing
     * (null) when it lies outside the view.
     */
    span(parent, from, to, top, height, attributes) {
      if (!this.visible(from, to)) {
        return null;
      }
      const left = Math.max(this.x(from), LABEL_WIDTH - 2);
      const right = Math.min(this.x(to), this.width());
      const rect = element(
        "rect",
        { x: left.toFixed(1), y: top, width: Math.max(1, right - left).toFixed(1), height: height },
        parent,
      );
      for (const key in attributes) {
        rect.setAttribute(key, attributes[key]);
      }
      return rect;
    }

    cpuRow(plot, labels, row, y) {
      const core = row.core;
      text(labels, 8, y + 13, "core " + core.core, "kt-label kt-lane-label");
      text(labels, 8, y + 25, core.instances.join(", ") || "idle", "kt-sub");
      const lane = element("g", { class: "kt-lane", "data-core": String(core.core) }, plot);
      core.spms.forEach((spm, i) => {
        const color = PALETTE[i % PALETTE.length];
        for (const a of spm.activations) {
          if (
            a.slices.length === 0 ||
            !this.visible(a.slices[0][0], a.slices[a.slices.length - 1][1])
          ) {
            continue;
          }
          const group = core.core + ":" + spm.name + ":" + a.seq;
          const content = activationTip(spm.name, a, spm.responseNs);
          a.slices.forEach((slice, k) => {
            if (k > 0 && this.visible(a.slices[k - 1][1], slice[0])) {
              const from = Math.max(this.x(a.slices[k - 1][1]), LABEL_WIDTH);
              const to = Math.min(this.x(slice[0]), this.width());
              element(
                "path",
                {
                  class: "kt-preempt",
                  "data-act": group,
                  d: "M" + from.toFixed(1) + "," + (y + 4) + "H" + to.toFixed(1),
                  stroke: color,
                  "stroke-dasharray": "3 2",
                  "stroke-width": 1.5,
                  fill: "none",
                },
                lane,
              );
            }
            if (!this.visible(slice[0], slice[1])) {
              return;
            }
            this.span(lane, slice[0], slice[1], y + 6, LANE_HEIGHT - 12, {
              class: "kt-slice",
              fill: color,
              stroke: "#fff",
              "stroke-width": 0.5,
              "data-act": group,
              "data-method": spm.name,
              "data-slices": a.slices.length,
              "data-tip": this.tipIndex(
                content +
                  "\nslice        " +
                  (k + 1) +
                  " of " +
                  a.slices.length +
                  ": " +
                  readable(slice[0]) +
                  " .. " +
                  readable(slice[1]),
              ),
            });
          });
        }
      });
    }

    spmRow(plot, labels, row, y, hatchId) {
      const spm = row.spm;
      const top = y + 4;
      const bottom = y + SPM_HEIGHT - 4;
      const name = text(
        labels,
        8,
        y + 14,
        spm.name.length > 30 ? spm.name.slice(0, 29) + "\u2026" : spm.name,
        "kt-label",
      );
      element("rect", { x: 1, y: y + 6, width: 4, height: 10, fill: row.color }, labels);
      name.setAttribute("x", 10);
      text(
        labels,
        10,
        y + 27,
        spm.criticality +
          (spm.band !== undefined ? ", band " + spm.band : "") +
          (spm.periodNs ? ", every " + readable(spm.periodNs) : ""),
        "kt-sub",
      );
      const items = element("g", { class: "kt-spm", "data-spm": spm.name }, plot);
      for (const a of spm.activations) {
        const last = Math.max(a.closeNs, a.deadlineNs, a.finishNs);
        if (!this.visible(a.releaseNs, last)) {
          continue;
        }
        const group = row.core.core + ":" + spm.name + ":" + a.seq;
        const g = element(
          "g",
          {
            class: "kt-activation " + a.outcome,
            "data-act": group,
            "data-tip": this.tipIndex(activationTip(spm.name, a, spm.responseNs)),
          },
          items,
        );
        this.span(g, a.openNs, a.closeNs, top, bottom - top, {
          class: "kt-window",
          fill: "#cfe8cf",
        });
        const missed = a.outcome === "deadline-missed";
        for (const slice of a.slices) {
          this.span(g, slice[0], slice[1], top + 7, bottom - top - 14, {
            class: "kt-exec",
            fill: missed ? "url(#" + hatchId + ")" : spm.criticality === "hard" ? HARD : SOFT,
          });
        }
        const release = this.x(a.releaseNs);
        element(
          "path",
          {
            class: "kt-release",
            stroke: "#1d2430",
            "stroke-width": 1.2,
            fill: "none",
            d:
              "M" +
              release +
              "," +
              bottom +
              "V" +
              top +
              "M" +
              (release - 3) +
              "," +
              (top + 4) +
              "L" +
              release +
              "," +
              top +
              "L" +
              (release + 3) +
              "," +
              (top + 4),
          },
          g,
        );
        const deadline = this.x(a.deadlineNs);
        element(
          "path",
          {
            class: "kt-deadline",
            stroke: missed ? "#d62828" : "#7a1f1f",
            "stroke-width": 1.2,
            fill: "none",
            d:
              "M" +
              deadline +
              "," +
              top +
              "V" +
              bottom +
              "M" +
              (deadline - 3) +
              "," +
              (bottom - 4) +
              "L" +
              deadline +
              "," +
              bottom +
              "L" +
              (deadline + 3) +
              "," +
              (bottom - 4),
          },
          g,
        );
        if (a.outcome === "window-missed") {
          const x = this.x(a.closeNs);
          const middle = (top + bottom) / 2;
          element(
            "path",
            {
              class: "kt-window-miss",
              stroke: "#d62828",
              "stroke-width": 2,
              fill: "none",
              d:
                "M" +
                (x - 4) +
                "," +
                (middle - 4) +
                "L" +
                (x + 4) +
                "," +
                (middle + 4) +
                "M" +
                (x - 4) +
                "," +
                (middle + 4) +
                "L" +
                (x + 4) +
                "," +
                (middle - 4),
            },
            g,
          );
        }
      }
      const measured = this.measuredByName.get(spm.name) || [];
      const run = this.node.measured;
      for (const m of measured) {
        if (!this.visible(m.releaseNs, Math.max(m.finishNs, m.deadlineNs))) {
          continue;
        }
        const mark = element(
          "g",
          {
            class: "kt-measured " + m.window,
            "data-seq": String(m.seq),
            "data-tip": this.tipIndex(measuredTip(run.source, m)),
          },
          items,
        );
        if (m.window === "met") {
          this.span(mark, m.startNs, m.finishNs, bottom - 6, 5, {
            fill: MEASURED,
            stroke: "#8a4f00",
            "stroke-width": 0.5,
          });
        } else {
          const x = this.x(m.startNs);
          element(
            "path",
            {
              d:
                "M" +
                (x - 4) +
                "," +
                (bottom - 8) +
                "L" +
                (x + 4) +
                "," +
                bottom +
                "M" +
                (x - 4) +
                "," +
                bottom +
                "L" +
                (x + 4) +
                "," +
                (bottom - 8),
              stroke: MEASURED,
              "stroke-width": 2,
              fill: "none",
            },
            mark,
          );
        }
        const release = this.x(m.releaseNs);
        element(
          "path",
          {
            d: "M" + release + "," + (bottom - 9) + "V" + bottom,
            stroke: MEASURED,
            "stroke-width": 1.5,
          },
          mark,
        );
      }
    }

    svmRow(plot, labels, row, y) {
      const svm = row.svm;
      const top = y + 5;
      const height = SVM_HEIGHT - 10;
      text(labels, 10, y + 11, svm.name, "kt-label");
      text(
        labels,
        10,
        y + 22,
        "SvM, GCT " + readable(svm.gctNs) + ", slot " + readable(svm.slotNs),
        "kt-sub",
      );
      const items = element("g", { class: "kt-svm", "data-svm": svm.name }, plot);
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
        this.span(items, this.from, this.to, top, height, {
          fill: fill,
          class: "kt-admission",
          "data-tip": this.tipIndex(svm.name + ": " + content + facts),
        });
      if (!svm.conflicts) {
        whole("#b9e3c6", "no conflicting SpM: a request is admitted at once, at any time");
        return;
      }
      if (svm.longestWaitNs < 0) {
        whole("#f4c7c7", "MAY NEVER BE ADMITTED (BCC leaves no room)");
        return;
      }
      if (svm.cycleNs <= 0) {
        whole(
          "#b9e3c6",
          "admitted at once except next to one-shot SpMs; waits at most " +
            readable(svm.longestWaitNs),
        );
        return;
      }
      whole(
        "#e3e6eb",
        "a request arriving here waits for admission (BCC), at most " + readable(svm.longestWaitNs),
      );
      const cycle = svm.cycleNs;
      const first = Math.floor(this.from / cycle) - 1;
      const last = Math.floor(this.to / cycle);
      if ((last - first + 1) * svm.windows.length > MAX_WINDOWS) {
        text(items, LABEL_WIDTH + 6, y + 17, "zoom in to see the admission windows", "kt-sub");
        return;
      }
      for (let k = first; k <= last; k++) {
        for (const w of svm.windows) {
          const from = k * cycle + w[0];
          const to = k * cycle + w[1];
          if (!this.visible(from, to)) {
            continue;
          }
          this.span(items, from, to, top, height, {
            class: "kt-admit",
            fill: "#b9e3c6",
            stroke: "#6fb587",
            "stroke-width": 0.5,
            "data-tip": this.tipIndex(
              svm.name +
                ": a request arriving in " +
                readable(from) +
                " .. " +
                readable(to) +
                " is admitted at once" +
                facts,
            ),
          });
        }
      }
    }
  }

  for (const host of document.querySelectorAll(".kt-view[data-node-index]")) {
    const node = data.nodes[Number(host.getAttribute("data-node-index"))];
    if (node) {
      host.timeline = new Timeline(host, node);
    }
  }
})();
