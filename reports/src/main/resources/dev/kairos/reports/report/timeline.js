// The interactive timeline of the `kairos check --html` page in a browser: zoom and pan with the
// wheel, a drag, the buttons or the keys + - 0 and the arrows; a tooltip with each activation's
// numbers. Every view is drawn by timeline-draw.js (KairosTimeline), the renderer `kairos check`
// runs for the static SVG that the editors' panels (which run no script) show, from the JSON the
// page embeds (TimelineData): nothing is fetched.
(function () {
  "use strict";
  const source = document.getElementById("kairos-timeline-data");
  const draw = window.KairosTimeline;
  if (!source || !draw) {
    return;
  }
  const data = JSON.parse(source.textContent);
  document.documentElement.classList.add("kt-js");

  /** The narrowest span a view zooms to. */
  const MIN_SPAN_NS = 100;

  const tip = document.createElement("div");
  tip.className = "kt-tip";
  tip.setAttribute("role", "tooltip");
  document.body.appendChild(tip);

  class Timeline {
    constructor(host, node) {
      this.host = host;
      this.node = node;
      this.tips = [];
      this.fullEnd = draw.fullEnd(node);
      const first = draw.initialView(node);
      this.from = first.from;
      this.to = first.to;
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
      extent.textContent = draw.extentText(this.node);
      this.host.appendChild(extent);

      this.plot = document.createElement("div");
      this.plot.className = "kt-plot";
      this.plot.tabIndex = 0;
      this.plot.setAttribute("aria-label", "timeline of node " + this.node.name);
      this.host.appendChild(this.plot);

      const legend = document.createElement("p");
      legend.className = "legend kt-legend";
      legend.innerHTML = draw.legendHtml(this.node);
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
      return Math.max(draw.LABEL_WIDTH + 200, this.plot.clientWidth);
    }

    plotWidth() {
      return this.width() - draw.LABEL_WIDTH - draw.RIGHT_PAD;
    }

    nsAt(clientX) {
      const left = this.plot.getBoundingClientRect().left;
      const px = Math.min(Math.max(clientX - left - draw.LABEL_WIDTH, 0), this.plotWidth());
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
      const drawn = draw.draw(this.node, { from: this.from, to: this.to, width: this.width() });
      this.plot.innerHTML = drawn.svg;
      this.svg = this.plot.firstElementChild;
      this.tips = drawn.tips;
      this.highlighted = null;
      this.range.textContent = draw.rangeText(this, this.fullEnd);
      this.range.setAttribute("data-from-ns", String(Math.round(this.from)));
      this.range.setAttribute("data-to-ns", String(Math.round(this.to)));
    }
  }

  for (const host of document.querySelectorAll(".kt-view[data-node-index]")) {
    const node = data.nodes[Number(host.getAttribute("data-node-index"))];
    if (node) {
      host.timeline = new Timeline(host, node);
    }
  }
})();
