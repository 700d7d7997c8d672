#!/usr/bin/env python3
"""Turns the JSON of kairos_bench_cubit, kairos_bench_mt_cubit, kairos_bench_inversion and
kairos_bench_kokyu_regions_<platform> (--json) into SVG plots (standard library only).

    python3 bench/cubit_plot.py RESULTS.json [MORE.json ...] [-o DIR]

For a cubit result: DIR/cubit_latency.svg, two-way p50 and p99 round trip per payload (log
scale), one line per stack and transport; and DIR/cubit_oneway.svg when the run measured oneway
throughput. For mt_cubit: DIR/mt_cubit.svg, the high-priority client's p50, p99 and max per
number of low-priority clients (log scale), with the low clients' p50. For inversion:
DIR/inversion.svg, p50 and p99 per client rate. For kokyu_regions: DIR/kokyu_regions_<platform>.svg,
per operating region the samples with a hard miss and the effectiveness, one line per strategy.
DIR defaults to the directory of the first file.
"""

import argparse
import json
import math
import sys
from pathlib import Path
from xml.sax.saxutils import escape

# One colour per stack (the Kairos ORB gets its own when it arrives), one dash per variant.
STACK_COLOURS = {"raw": "#1b6ca8", "kairos": "#d1495b", "grpc": "#2e8b57", "dds": "#8e44ad"}
OTHER_COLOURS = ["#e08e0b", "#555555", "#00a6a6", "#a0522d"]
DASHES = ["", "6,3", "2,3", "8,3,2,3", "1,2", "10,4"]
FAMILY_ORDER = ["uds", "tcp", "udp", "shm"]


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"cubit_plot: cannot read {path}: {e}")
    if isinstance(data, dict) and data.get("benchmark") == "kokyu_regions":
        if not isinstance(data.get("strategies"), list):
            sys.exit(f"cubit_plot: {path} is a kokyu_regions result with no 'strategies' list")
        return data
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        sys.exit(f"cubit_plot: {path} is not a cubit result (no 'results' list)")
    if data.get("benchmark", "cubit") not in ("cubit", "mt_cubit", "inversion"):
        sys.exit(f"cubit_plot: {path} is not a cubit result (benchmark "
                 f"{data.get('benchmark')!r})")
    return data


def svg_head(width, height, title, subtitle):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="10" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
            f'<text x="10" y="37" fill="#555">{escape(subtitle)}</text>']


def log_axis(out, x0, width, top, height, low, high):
    """Draws the grid of a log-scale y axis; returns the function placing a value."""
    def y_of(v):
        v = min(max(v, low), high)
        return top + height * (1 - (math.log10(v) - math.log10(low)) /
                               (math.log10(high) - math.log10(low)))
    decade = low
    while decade <= high * 1.0001:
        for m in (1, 2, 5):
            v = decade * m
            if low <= v <= high:
                y = y_of(v)
                out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + width}" y2="{y:.1f}" '
                           f'stroke="{"#ddd" if m == 1 else "#f0f0f0"}"/>')
                out.append(f'<text x="{x0 - 5}" y="{y + 4:.1f}" text-anchor="end" '
                           f'fill="#444">{v:g}</text>')
        decade *= 10
    out.append(f'<rect x="{x0}" y="{top}" width="{width}" height="{height}" fill="none" '
               f'stroke="#999"/>')
    return y_of


def run_note(data):
    load = data.get("load_average_before", ["?"] * 3)
    return (f'{data.get("transport", "?")}, {data.get("seconds", "?")} s per run, servant work '
            f'{data.get("work_us", "?")} us, load average at start {load[0]}, '
            f'{"SCHED_FIFO" if data.get("real_time") else "time-shared"}')


def mt_cubit_svg(data):
    rows = [r for r in data["results"] if "n" in r and r.get("samples")]
    if not rows:
        return None
    left, top, width, height, legend_w = 70, 60, 520, 320, 250
    values = [r[k] for r in rows for k in ("p50_us", "p99_us", "max_us", "low_p50_us")
              if r.get(k, 0) > 0]
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values)))
    out = svg_head(left + width + legend_w, top + height + 60,
                   "mt_cubit: the high-priority client's round trip while N low-priority "
                   "clients call", run_note(data))
    y_of = log_axis(out, left, width, top, height, low, high)
    def x_of(i):
        return left + width * (i + 0.5) / len(rows)
    for i, r in enumerate(rows):
        out.append(f'<text x="{x_of(i):.1f}" y="{top + height + 18}" text-anchor="middle" '
                   f'fill="#444">{r["n"]}</text>')
    out.append(f'<text x="{left + width / 2}" y="{top + height + 40}" text-anchor="middle">'
               f'N low-priority clients (us, log scale)</text>')
    series = [("p50_us", "high p50", "#d1495b", ""), ("p99_us", "high p99", "#d1495b", "6,3"),
              ("max_us", "high max", "#d1495b", "1,2"),
              ("low_p50_us", "low p50", "#1b6ca8", "")]
    for n, (key, label, colour, dash) in enumerate(series):
        coords = [(x_of(i), y_of(r[key])) for i, r in enumerate(rows) if r.get(key, 0) > 0]
        stroke = f' stroke-dasharray="{dash}"' if dash else ""
        if coords:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.8"{stroke}/>')
            for x, y in coords:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
        ly = top + 10 + 18 * n
        lx = left + width + 20
        out.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 34}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="2"{stroke}/>')
        out.append(f'<text x="{lx + 42}" y="{ly}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def inversion_svg(data):
    rows = [r for r in data["results"] if "client" in r and r.get("samples")]
    if not rows:
        return None
    left, top, width, height = 70, 60, 560, 300
    high = max(r["p99_us"] for r in rows) * 1.15
    out = svg_head(left + width + 40, top + height + 60,
                   "inversion: round trip per client rate (p50 solid, p99 light); staircase: "
                   + ("yes" if data.get("staircase") else "no"), run_note(data))
    step = 10 ** math.floor(math.log10(high / 4))
    v = 0
    while v <= high:
        y = top + height * (1 - v / high)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + width}" y2="{y:.1f}" '
                   f'stroke="#eee"/>')
        out.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" fill="#444">'
                   f'{v:g}</text>')
        v += step if high / step <= 12 else 2 * step
    out.append(f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" '
               f'stroke="#999"/>')
    group = width / len(rows)
    for i, r in enumerate(rows):
        x = left + i * group + group * 0.2
        colour = "#888888" if r["client"].startswith("baseline") else "#d1495b"
        for key, opacity, offset in (("p99_us", 0.35, 0.0), ("p50_us", 1.0, 0.15)):
            h = height * r[key] / high
            out.append(f'<rect x="{x + group * offset:.1f}" y="{top + height - h:.1f}" '
                       f'width="{group * 0.45:.1f}" height="{h:.1f}" fill="{colour}" '
                       f'fill-opacity="{opacity}"/>')
        out.append(f'<text x="{x + group * 0.3:.1f}" y="{top + height - height * r["p50_us"] / high - 4:.1f}" '
                   f'text-anchor="middle" fill="#222">{r["p50_us"]:.0f}</text>')
        label = "alone" if r["client"].startswith("baseline") else r["client"]
        out.append(f'<text x="{x + group * 0.3:.1f}" y="{top + height + 18}" '
                   f'text-anchor="middle" fill="#444">{escape(label)} (band {r["band"]})</text>')
    out.append(f'<text x="{left + width / 2}" y="{top + height + 40}" text-anchor="middle">'
               f'client (us)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


STRATEGY_STYLES = {"rms": ("#d1495b", ""), "muf": ("#2e8b57", ""), "rms+mlf": ("#1b6ca8", "6,3"),
                   "np-edf": ("#e08e0b", ""), "edf": ("#e08e0b", "4,2"), "mlf": ("#8e44ad", "2,3")}


def kokyu_svg(data):
    """Two panels over regions 0..11: samples with a hard miss, and effectiveness (%)."""
    strategies = [s for s in data["strategies"] if s.get("regions")]
    if not strategies:
        return None
    samples = data.get("samples", 1)
    left, top, width, height, gap, legend_w = 60, 75, 360, 260, 80, 110
    panels = (("samples_with_hard_miss", f"samples with a hard miss (of {samples})", samples),
              ("effectiveness", "effectiveness: soft deadlines made in clean samples (%)", 100))
    total_w = left + 2 * width + gap + legend_w
    out = svg_head(total_w, top + height + 60,
                   "Kokyu operating regions: hard misses and effectiveness per strategy",
                   f'{data.get("platform", "?")}, {samples} one-second samples per region, '
                   f'seed {data.get("seed", "?")}')
    regions = max(len(s["regions"]) for s in strategies)
    for p, (key, label, high) in enumerate(panels):
        x0 = left + p * (width + gap)
        def x_of(i, x0=x0):
            return x0 + width * (i + 0.5) / regions
        def y_of(v, high=high):
            return top + height * (1 - v / high)
        for k in range(5):
            v = high * k / 4
            out.append(f'<line x1="{x0}" y1="{y_of(v):.1f}" x2="{x0 + width}" y2="{y_of(v):.1f}" '
                       f'stroke="#eee"/>')
            out.append(f'<text x="{x0 - 5}" y="{y_of(v) + 4:.1f}" text-anchor="end" '
                       f'fill="#444">{v:g}</text>')
        out.append(f'<rect x="{x0}" y="{top}" width="{width}" height="{height}" fill="none" '
                   f'stroke="#999"/>')
        for i in range(regions):
            out.append(f'<text x="{x_of(i):.1f}" y="{top + height + 18}" text-anchor="middle" '
                       f'fill="#444">{i}</text>')
        out.append(f'<text x="{x0 + width / 2}" y="{top + height + 40}" text-anchor="middle">'
                   f'operating region</text>')
        out.append(f'<text x="{x0}" y="{top - 8}" fill="#222">{escape(label)}</text>')
        for strategy in strategies:
            colour, dash = STRATEGY_STYLES.get(strategy["strategy"], ("#555555", ""))
            stroke = f' stroke-dasharray="{dash}"' if dash else ""
            coords = [(x_of(r["region"]), y_of(r[key])) for r in strategy["regions"]]
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.8"{stroke}/>')
            for x, y in coords:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
    for n, strategy in enumerate(strategies):
        colour, dash = STRATEGY_STYLES.get(strategy["strategy"], ("#555555", ""))
        stroke = f' stroke-dasharray="{dash}"' if dash else ""
        lx, ly = left + 2 * width + gap + 15, top + 10 + 18 * n
        out.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 30}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="2"{stroke}/>')
        out.append(f'<text x="{lx + 38}" y="{ly}">{escape(strategy["strategy"])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def colour_of(stack, extra):
    if stack not in STACK_COLOURS:
        STACK_COLOURS[stack] = OTHER_COLOURS[extra[0] % len(OTHER_COLOURS)]
        extra[0] += 1
    return STACK_COLOURS[stack]


def series_key(row):
    family = row.get("family", "")
    rank = FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER)
    return (rank, row["stack"] != "raw", row["stack"], row["transport"])


def latency_svg(data):
    rows = [r for r in data["results"] if r.get("mode") == "two-way"]
    if not rows:
        return None
    payloads = []
    for r in rows:
        if r["payload"] not in [p for p, _ in payloads]:
            payloads.append((r["payload"], r["bytes"]))
    series = {}
    for r in sorted(rows, key=series_key):
        series.setdefault((r["stack"], r["transport"], r.get("family", "")), {})[r["payload"]] = r

    panel_w, panel_h, left, top, gap, legend_w = 430, 330, 60, 70, 70, 230
    width = left + 2 * panel_w + gap + legend_w
    height = top + panel_h + 90
    values = [r[k] for r in rows for k in ("p50_us", "p99_us") if r.get(k, 0) > 0]
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values)))

    def y_of(v):
        v = max(v, low)
        return top + panel_h * (1 - (math.log10(v) - math.log10(low)) /
                                (math.log10(high) - math.log10(low)))

    def x_of(panel, i):
        x0 = left + panel * (panel_w + gap)
        return x0 + panel_w * (i + 0.5) / len(payloads)

    load = data.get("load_average_before", ["?"] * 3)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="15" font-weight="bold">cubit: two-way round trip '
           f'per payload ({escape(str(data.get("samples")))} samples per point)</text>',
           f'<text x="{left}" y="37" fill="#555">load average at start {escape(str(load[0]))}; '
           f'ratios and the same figures are printed by kairos_bench_cubit</text>']
    extra = [0]
    dash_of = {}
    for panel, (key, title) in enumerate((("p50_us", "p50"), ("p99_us", "p99"))):
        x0 = left + panel * (panel_w + gap)
        out.append(f'<rect x="{x0}" y="{top}" width="{panel_w}" height="{panel_h}" '
                   f'fill="none" stroke="#999"/>')
        out.append(f'<text x="{x0 + panel_w / 2}" y="{top - 6}" text-anchor="middle" '
                   f'font-weight="bold">{title} (us, log scale)</text>')
        decade = low
        while decade <= high * 1.0001:
            for m in (1, 2, 5):
                v = decade * m
                if low <= v <= high:
                    y = y_of(v)
                    out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + panel_w}" y2="{y:.1f}" '
                               f'stroke="{"#ddd" if m == 1 else "#f0f0f0"}"/>')
                    if m == 1 or (high / low) <= 1000:
                        out.append(f'<text x="{x0 - 5}" y="{y + 4:.1f}" text-anchor="end" '
                                   f'fill="#444">{v:g}</text>')
            decade *= 10
        for i, (name, size) in enumerate(payloads):
            x = x_of(panel, i)
            out.append(f'<text x="{x:.1f}" y="{top + panel_h + 16}" text-anchor="end" '
                       f'transform="rotate(-35 {x:.1f} {top + panel_h + 16})" fill="#444">'
                       f'{escape(name)} ({size} B)</text>')
        for (stack, transport, family), points in series.items():
            colour = colour_of(stack, extra)
            per_stack = [k for k in dash_of if k[0] == stack]
            if (stack, transport) not in dash_of:
                dash_of[(stack, transport)] = DASHES[len(per_stack) % len(DASHES)]
            dash = dash_of[(stack, transport)]
            coords = [(x_of(panel, i), y_of(points[name][key]))
                      for i, (name, _) in enumerate(payloads)
                      if name in points and points[name].get(key, 0) > 0]
            if not coords:
                continue
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="1.8"' + (f' stroke-dasharray="{dash}"' if dash else "") +
                       "/>")
            for x, y in coords:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
    lx = left + 2 * panel_w + gap + 20
    out.append(f'<text x="{lx}" y="{top + 4}" font-weight="bold">stack transport</text>')
    for n, (stack, transport, family) in enumerate(series):
        y = top + 22 + 18 * n
        colour = colour_of(stack, extra)
        dash = dash_of.get((stack, transport), "")
        out.append(f'<line x1="{lx}" y1="{y - 4}" x2="{lx + 34}" y2="{y - 4}" stroke="{colour}" '
                   f'stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.append(f'<text x="{lx + 42}" y="{y}">{escape(stack)} {escape(transport)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def oneway_svg(data):
    rows = [r for r in data["results"] if r.get("mode") == "oneway" and r.get("per_second")]
    if not rows:
        return None
    rows.sort(key=series_key)
    payloads = []
    for r in rows:
        if r["payload"] not in payloads:
            payloads.append(r["payload"])
    names = []
    for r in rows:
        if (r["stack"], r["transport"]) not in names:
            names.append((r["stack"], r["transport"]))
    value = {(r["stack"], r["transport"], r["payload"]): r["per_second"] for r in rows}
    left, top, bar_h, label_w = 150, 50, 9, 420
    group_h = bar_h * len(payloads) + 8
    width = left + label_w + 140
    height = top + group_h * len(names) + 40
    top_rate = max(value.values())
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">cubit: oneway messages per '
           f'second (bars: {", ".join(escape(p) for p in payloads)})</text>']
    extra = [0]
    for n, (stack, transport) in enumerate(names):
        y0 = top + n * group_h
        out.append(f'<text x="{left - 8}" y="{y0 + group_h / 2 + 2:.1f}" text-anchor="end">'
                   f'{escape(stack)} {escape(transport)}</text>')
        for i, payload in enumerate(payloads):
            rate = value.get((stack, transport, payload))
            if not rate:
                continue
            w = label_w * rate / top_rate
            y = y0 + i * bar_h
            opacity = 1.0 - 0.18 * i
            out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h - 1}" '
                       f'fill="{colour_of(stack, extra)}" fill-opacity="{opacity:.2f}"/>')
            if i == 0:
                out.append(f'<text x="{left + w + 4:.1f}" y="{y + bar_h - 1}" fill="#444">'
                           f'{rate / 1e3:,.0f} k/s</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+",
                        help="JSON written by kairos_bench_cubit, _mt_cubit or _inversion --json")
    parser.add_argument("-o", "--output", help="directory for the SVG files")
    args = parser.parse_args(argv)
    directory = Path(args.output) if args.output else Path(args.results[0]).resolve().parent
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for path in args.results:
        data = load(path)
        benchmark = data.get("benchmark", "cubit")
        if benchmark == "kokyu_regions":
            plots = ((f'kokyu_regions_{data.get("platform", "sim")}.svg', kokyu_svg(data)),)
        elif benchmark == "mt_cubit":
            plots = (("mt_cubit.svg", mt_cubit_svg(data)),)
        elif benchmark == "inversion":
            plots = (("inversion.svg", inversion_svg(data)),)
        else:
            plots = (("cubit_latency.svg", latency_svg(data)),
                     ("cubit_oneway.svg", oneway_svg(data)))
        for name, svg in plots:
            if svg:
                (directory / name).write_text(svg, encoding="utf-8")
                written.append(str(directory / name))
    if not written:
        sys.exit("cubit_plot: no results to plot")
    print("\n".join(written))


if __name__ == "__main__":
    main()
