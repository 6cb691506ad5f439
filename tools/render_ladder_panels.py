#!/usr/bin/env python3
"""Draws the Grafana dashboard's Ladder row from a Prometheus server, as a picture for the docs.

It runs the very queries of deploy/grafana/ssimd-dashboard.json (the "Ladder: quality against
bitrate" and "Ladder: renditions below the floor" panels) through Prometheus's HTTP API and draws
quality against bitrate per title, with the table of renditions below the floor beside it. Needs
matplotlib (Debian: python3-matplotlib). tools/render_ladder_panels.sh makes a Prometheus that has
scraped a server which scored tests/data/ladder, and runs this against it.

  python3 tools/render_ladder_panels.py --prometheus http://127.0.0.1:9090 \\
      --out docs/images/ladder-panels.png
"""

import argparse
import json
import os
import sys
import urllib.parse
import urllib.request

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import matplotlib.ticker  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DASHBOARD = os.path.join(REPO, "deploy", "grafana", "ssimd-dashboard.json")
XY_PANEL = "Ladder: quality against bitrate"
TABLE_PANEL = "Ladder: renditions below the floor"
# Where a point's label goes, by codec: (offset in points, alignment).
LABEL_PLACES = [((6, -10), "left"), ((-6, 5), "right"), ((6, -20), "left")]


def panel_queries(title):
    with open(DASHBOARD, encoding="utf-8") as f:
        panels = json.load(f)["panels"]
    for panel in panels:
        if panel["title"] == title:
            return [t["expr"] for t in panel["targets"]]
    raise SystemExit(f"{DASHBOARD} has no panel {title!r}: regenerate it with make_dashboard.py")


def substitute(expr, variables):
    for name, value in variables.items():
        expr = expr.replace(name, value)
    return expr


class Prometheus:
    def __init__(self, url):
        self.url = url.rstrip("/")

    def api(self, path, **params):
        query = urllib.parse.urlencode(params, doseq=True)
        with urllib.request.urlopen(f"{self.url}/api/v1/{path}?{query}", timeout=30) as response:
            answer = json.load(response)
        if answer.get("status") != "success":
            raise SystemExit(f"Prometheus refused {path} {params}: {answer}")
        return answer["data"]

    def rows(self, expr):
        """{(title, rendition): (labels, value)} of an instant query."""
        result = self.api("query", query=expr)["result"]
        return {(r["metric"]["title"], r["metric"]["rendition"]): (r["metric"], float(r["value"][1]))
                for r in result}


def draw_titles(ax, prometheus, titles, variables, feature):
    bitrate_expr, score_expr = panel_queries(XY_PANEL)
    info = prometheus.rows(substitute(
        'max by (title, rendition, codec) (ssimd_rendition_info{job=~"$job"})', variables))
    codecs = sorted({labels["codec"] for labels, _ in info.values()})
    markers = dict(zip(codecs, "osD^v<>"))
    for title in titles:
        per_title = dict(variables, **{"$title": title})
        bitrates = prometheus.rows(substitute(bitrate_expr, per_title))
        scores = prometheus.rows(substitute(score_expr, per_title))
        points = sorted((bitrates[k][1], scores[k][1], k[1], info.get(k, ({}, 0))[0].get("codec", "?"))
                        for k in bitrates if k in scores)
        for codec in codecs:
            mine = [p for p in points if p[3] == codec]
            if not mine:
                continue
            ax.plot([p[0] / 1000 for p in mine], [p[1] for p in mine], marker=markers[codec],
                    linestyle="-", linewidth=1, label=f"{title} · {codec}")
        for bits, score, rendition, codec in points:
            # Each codec's labels on a side of their own, so that rungs of similar bitrate stay
            # legible.
            offset, align = LABEL_PLACES[codecs.index(codec) % len(LABEL_PLACES)]
            ax.annotate(rendition, (bits / 1000, score), textcoords="offset points",
                        xytext=offset, ha=align, fontsize=7)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.margins(x=0.12, y=0.06)
    ax.set_xlabel("bitrate (kbit/s, log scale)")
    ax.set_ylabel(f"pooled mean {feature}")
    ax.set_title(XY_PANEL + (f" — {titles[0]}" if len(titles) == 1 else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.axhline(float(variables["$floor"]), color="red", linewidth=0.8, linestyle="--")
    ax.legend(fontsize=8, loc="lower right")


def draw_table(ax, prometheus, variables):
    mean_expr, p5_expr, bitrate_expr, info_expr = panel_queries(TABLE_PANEL)
    means = prometheus.rows(substitute(mean_expr, variables))
    p5 = prometheus.rows(substitute(p5_expr, variables))
    bitrates = prometheus.rows(substitute(bitrate_expr, variables))
    info = prometheus.rows(substitute(info_expr, variables))
    rows = []
    for key, (_, mean) in sorted(means.items(), key=lambda kv: kv[1][1]):
        rows.append([key[0], key[1], f"{mean:.6f}",
                     f"{p5[key][1]:.6f}" if key in p5 else "",
                     f"{bitrates[key][1] / 1000:.0f}" if key in bitrates else "",
                     info[key][0].get("codec", "") if key in info else ""])
    ax.axis("off")
    ax.set_title(f"{TABLE_PANEL} ({variables['$floor']})")
    if not rows:
        ax.text(0.5, 0.5, "no rendition below the floor", ha="center", va="center")
        return
    table = ax.table(cellText=rows, colLabels=["title", "rendition", "mean", "p5", "kbit/s",
                                               "codec"], loc="upper center", cellLoc="left",
                     colWidths=[0.14, 0.26, 0.16, 0.16, 0.13, 0.11])
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    table.scale(1, 1.4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prometheus", required=True, help="Prometheus base URL")
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "images", "ladder-panels.png"))
    parser.add_argument("--title", action="append",
                        help="title to draw (repeatable); default: every title Prometheus has")
    parser.add_argument("--feature", default="float_ssim", choices=("float_ssim", "ssim"))
    parser.add_argument("--floor", default="0.95", help="the dashboard's $floor")
    parser.add_argument("--job", default=".+", help="the dashboard's $job (a regular expression)")
    args = parser.parse_args()

    prometheus = Prometheus(args.prometheus)
    titles = args.title or prometheus.api(
        "label/title/values", **{"match[]": "ssimd_rendition_bytes_per_second"})
    if not titles:
        raise SystemExit("Prometheus has no ssimd_rendition_* series: score a ladder first")
    variables = {"$job": args.job, "$ladder_feature": args.feature, "$floor": args.floor}

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2),
                                      gridspec_kw={"width_ratios": [1.35, 1]})
    draw_titles(left, prometheus, titles, variables, args.feature)
    draw_table(right, prometheus, variables)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    fig.savefig(args.out, dpi=90)
    print(f"wrote {args.out} ({len(titles)} title(s))", file=sys.stderr)


if __name__ == "__main__":
    main()
