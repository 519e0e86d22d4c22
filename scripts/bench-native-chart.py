#!/usr/bin/env python3
"""The chart of scripts/bench-native.sh: the ratio layer / native per size,
one line per collective and rank count, as an SVG (no plotting library
needed). The barrier, which has no size, is a dashed horizontal line.

Usage: bench-native-chart.py CSV SVG
"""
import csv
import math
import sys

WIDTH, HEIGHT = 900, 480
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 40, 60
COLOURS = {"allreduce": "#1f77b4", "allgather": "#2ca02c", "allgatherv": "#9467bd",
           "gather": "#ff7f0e", "gatherv": "#8c564b", "bcast": "#d62728",
           "reduce": "#17becf", "reduce_scatter": "#bcbd22",
           "reduce_scatter_block": "#e377c2", "alltoall": "#393b79", "alltoallv": "#637939",
           "scan": "#843c39", "exscan": "#7b4173",
           "barrier": "#7f7f7f"}
DASHES = {2: "", 4: "6,3", 8: "2,3", 16: "8,3,2,3"}


def read(path):
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["ranks"]), row["collective"])
            series.setdefault(key, []).append((int(row["bytes"]), float(row["ratio"])))
    return series


def size_label(b):
    return f"{b // 1048576}M" if b >= 1048576 else f"{b // 1024}K" if b >= 1024 else str(b)


def chart(series):
    sizes = sorted({b for points in series.values() for b, _ in points if b > 0}) or [4]
    ratios = [r for points in series.values() for _, r in points]
    low, high = min(ratios + [0.9]), max(ratios + [1.2])
    high = min(high, 4.0)   # a wild outlier would flatten the rest
    lx, hx = math.log2(sizes[0]), math.log2(sizes[-1]) if sizes[-1] > sizes[0] else math.log2(sizes[0]) + 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(b):
        return LEFT + (math.log2(b) - lx) / (hx - lx) * plot_w

    def y(r):
        return TOP + (high - min(r, high)) / (high - low) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{LEFT}" y="22" font-size="14">ftcoll through the PMPI layer / native MPI, '
           f'back-to-back calls (lower is better; 1 = as fast)</text>']
    for b in sizes:
        out.append(f'<line x1="{x(b):.1f}" y1="{TOP}" x2="{x(b):.1f}" y2="{TOP + plot_h}" '
                   f'stroke="#eee"/>')
        out.append(f'<text x="{x(b):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">'
                   f'{size_label(b)}</text>')
    step = 0.25 if high - low <= 2 else 0.5
    tick = math.ceil(low / step) * step
    while tick <= high + 1e-9:
        out.append(f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + plot_w}" y2="{y(tick):.1f}" '
                   f'stroke="{"#999" if abs(tick - 1) < 1e-9 else "#eee"}"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.2f}</text>')
        tick += step
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 15}" text-anchor="middle">'
               f'bytes per rank</text>')
    for i, ((p, name), points) in enumerate(sorted(series.items())):
        colour, dash = COLOURS.get(name, "black"), DASHES.get(p, "1,1")
        style = f'fill="none" stroke="{colour}" stroke-width="2"'
        if name == "barrier":
            r = points[0][1]
            out.append(f'<line x1="{LEFT}" y1="{y(r):.1f}" x2="{LEFT + plot_w}" y2="{y(r):.1f}" '
                       f'{style} stroke-dasharray="{dash or "10,4"}" opacity="0.6"/>')
        else:
            path = " ".join(f"{x(b):.1f},{y(r):.1f}" for b, r in sorted(points))
            out.append(f'<polyline points="{path}" {style}'
                       + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        ly = TOP + 16 * i
        out.append(f'<line x1="{WIDTH - RIGHT + 15}" y1="{ly}" x2="{WIDTH - RIGHT + 45}" y2="{ly}" '
                   f'{style}' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.append(f'<text x="{WIDTH - RIGHT + 52}" y="{ly + 4}">{name}, p = {p}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2], "w") as f:
        f.write(chart(read(sys.argv[1])))


if __name__ == "__main__":
    main()
