#!/usr/bin/env python3
"""Turns the JSON of kairos_bench_cubit --json into SVG plots (standard library only).

    python3 bench/cubit_plot.py RESULTS.json [-o DIR]

Writes DIR/cubit_latency.svg: two-way p50 and p99 round trip per payload (log scale), one
line per stack and transport; and DIR/cubit_oneway.svg when the run measured oneway
throughput. DIR defaults to the directory of RESULTS.json.
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
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        sys.exit(f"cubit_plot: {path} is not a cubit result (no 'results' list)")
    return data


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
    parser.add_argument("results", help="JSON written by kairos_bench_cubit --json")
    parser.add_argument("-o", "--output", help="directory for the SVG files")
    args = parser.parse_args(argv)
    data = load(args.results)
    directory = Path(args.output) if args.output else Path(args.results).resolve().parent
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, svg in (("cubit_latency.svg", latency_svg(data)),
                      ("cubit_oneway.svg", oneway_svg(data))):
        if svg:
            (directory / name).write_text(svg, encoding="utf-8")
            written.append(str(directory / name))
    if not written:
        sys.exit("cubit_plot: no results to plot")
    print("\n".join(written))


if __name__ == "__main__":
    main()
