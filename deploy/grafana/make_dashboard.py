#!/usr/bin/env python3
"""Writes ssimd-dashboard.json, the Grafana dashboard for ssimd.

The dashboard is generated so that its queries are written once, in readable Python, and so that a
test can list every query (see //tests/observability:prometheus_queries_test). Edit this file, run
it, and commit both:  python3 deploy/grafana/make_dashboard.py
"""

import json
import os
import sys

# Every query filters on the selected Prometheus jobs; $__rate_interval is Grafana's
# scrape-aware rate window.
SEL = 'job=~"$job"'
FSEL = 'job=~"$job",feature=~"$feature"'
RATE = "$__rate_interval"

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}

# The ladder view: one rendition per (title, rendition) series; $ladder_feature picks the metric
# and $floor the quality below which a rung is listed.
LSEL = 'job=~"$job",feature="$ladder_feature"'
TSEL = 'job=~"$job",title="$title"'


class Layout:
    """Places panels left to right on Grafana's 24-column grid."""

    def __init__(self):
        self.x = 0
        self.y = 0
        self.row_height = 0
        self.next_id = 1

    def place(self, width, height):
        if self.x + width > 24:
            self.x = 0
            self.y += self.row_height
            self.row_height = 0
        pos = {"h": height, "w": width, "x": self.x, "y": self.y}
        self.x += width
        self.row_height = max(self.row_height, height)
        return pos

    def new_row(self):
        if self.x:
            self.x = 0
            self.y += self.row_height
            self.row_height = 0

    def id(self):
        self.next_id += 1
        return self.next_id - 1


def target(expr, legend="", ref="A", instant=False, table=False):
    t = {"datasource": DATASOURCE, "expr": expr, "refId": ref, "legendFormat": legend or "__auto"}
    if instant:
        t["instant"] = True
        t["range"] = False
    if table:
        t["format"] = "table"
    return t


def row(layout, title):
    layout.new_row()
    pos = layout.place(24, 1)
    layout.new_row()
    return {"type": "row", "title": title, "id": layout.id(), "gridPos": pos, "collapsed": False,
            "panels": []}


def timeseries(layout, title, description, targets, unit, width=12, height=8, stack=False):
    return {
        "type": "timeseries",
        "title": title,
        "description": description,
        "id": layout.id(),
        "gridPos": layout.place(width, height),
        "datasource": DATASOURCE,
        "targets": targets,
        "fieldConfig": {
            "defaults": {
                "unit": unit,
                "custom": {"stacking": {"mode": "normal" if stack else "none"}, "fillOpacity": 10},
            },
            "overrides": [],
        },
        "options": {"legend": {"displayMode": "table", "placement": "right",
                               "calcs": ["mean", "max"]},
                    "tooltip": {"mode": "multi", "sort": "desc"}},
    }


def stat(layout, title, description, expr, unit, thresholds=None):
    steps = [{"color": "green", "value": None}]
    for value, color in thresholds or []:
        steps.append({"color": color, "value": value})
    return {
        "type": "stat",
        "title": title,
        "description": description,
        "id": layout.id(),
        "gridPos": layout.place(4, 4),
        "datasource": DATASOURCE,
        "targets": [target(expr, instant=True)],
        "fieldConfig": {"defaults": {"unit": unit, "thresholds": {"mode": "absolute",
                                                                  "steps": steps}},
                        "overrides": []},
        "options": {"reduceOptions": {"calcs": ["lastNotNull"]}, "colorMode": "value",
                    "graphMode": "area"},
    }


def quantile_targets(metric, by, legend):
    return [
        target(f"histogram_quantile({q}, sum by (le, {by}) (rate({metric}_bucket{{{FSEL}}}[{RATE}])))",
               f"p{int(q * 100)} {legend}", ref)
        for q, ref in ((0.5, "A"), (0.95, "B"), (0.99, "C"))
    ]


def title_table(layout):
    return {
        "type": "table",
        "title": "Per-title quality (lowest first)",
        "description": (
            "Latest pooled (mean) score of each title ssimd still tracks, by metric name; the "
            "lowest over all pods first, so the titles most likely to need a look lead. Values are "
            "as requested: dB where the client asked for enable_db. Only the most recently scored "
            "titles are kept (flag metrics_max_titles); older ones are evicted."),
        "id": layout.id(),
        "gridPos": layout.place(24, 10),
        "datasource": DATASOURCE,
        "targets": [target(f'sort(min by (title, feature) (ssimd_title_score{{{SEL}}}))',
                           instant=True, table=True)],
        "transformations": [
            {"id": "organize", "options": {"excludeByName": {"Time": True},
                                           "renameByName": {"Value": "score"},
                                           "indexByName": {"title": 0, "feature": 1, "Value": 2}}},
        ],
        "fieldConfig": {"defaults": {"decimals": 6}, "overrides": []},
        "options": {"showHeader": True, "sortBy": [{"displayName": "score", "desc": False}]},
    }


def rung_value(metric, selector, pool=None):
    """One value per (title, rendition) of a rendition gauge, over all pods that hold it."""
    pool_match = f',pool="{pool}"' if pool else ""
    return f"max by (title, rendition) ({metric}{{{selector}{pool_match}}})"


def merged_table(renames, order, hide=()):
    """Transformations that join instant table queries on their labels and name the values."""
    return [
        {"id": "merge", "options": {}},
        {"id": "organize", "options": {"excludeByName": {name: True for name in ("Time", *hide)},
                                       "renameByName": renames,
                                       "indexByName": {name: i for i, name in enumerate(order)}}},
    ]


def ladder_xy(layout):
    return {
        "type": "xychart",
        "title": "Ladder: quality against bitrate",
        "description": (
            "One point per rendition of the chosen title's latest scored ladder (ScoreLadder): "
            "its pooled mean score ($ladder_feature) against its average bitrate (file size in "
            "bits over the container's duration). A good ladder climbs steeply and flattens; a "
            "rung left of and below another is wasted bits. Hover a point for its rendition."),
        "id": layout.id(),
        "gridPos": layout.place(14, 10),
        "datasource": DATASOURCE,
        "targets": [
            target(f'8 * {rung_value("ssimd_rendition_bytes_per_second", TSEL)}', ref="A",
                   instant=True, table=True),
            target(rung_value("ssimd_rendition_score", f'{TSEL},feature="$ladder_feature"', "mean"),
                   ref="B", instant=True, table=True),
        ],
        "transformations": merged_table({"Value #A": "bitrate", "Value #B": "score"},
                                        ["title", "rendition", "bitrate", "score"]),
        "fieldConfig": {
            "defaults": {"custom": {"show": "points", "pointSize": {"fixed": 9}}},
            "overrides": [
                {"matcher": {"id": "byName", "options": "bitrate"},
                 "properties": [{"id": "unit", "value": "bps"}]},
                {"matcher": {"id": "byName", "options": "score"},
                 "properties": [{"id": "decimals", "value": 4}]},
            ],
        },
        "options": {"seriesMapping": "auto", "dims": {"frame": 0, "x": "bitrate"},
                    "series": [], "legend": {"displayMode": "list", "placement": "bottom",
                                             "showLegend": True},
                    "tooltip": {"mode": "single", "sort": "none"}},
    }


def ladder_below_floor(layout):
    below = (f'{rung_value("ssimd_rendition_score", LSEL, "mean")} < $floor')
    rungs = f"on (title, rendition) ({below})"
    return {
        "type": "table",
        "title": "Ladder: renditions below the floor",
        "description": (
            "Renditions of every tracked title whose pooled mean score ($ladder_feature) is "
            "below $floor, lowest first, with their 5th percentile, bitrate and codec. Type "
            "another floor in the variable above."),
        "id": layout.id(),
        "gridPos": layout.place(10, 10),
        "datasource": DATASOURCE,
        "targets": [
            target(f"sort({below})", ref="A", instant=True, table=True),
            target(f'{rung_value("ssimd_rendition_score", LSEL, "p5")} and {rungs}', ref="B",
                   instant=True, table=True),
            target(f'8 * {rung_value("ssimd_rendition_bytes_per_second", SEL)} and {rungs}',
                   ref="C", instant=True, table=True),
            target(f"max by (title, rendition, codec) (ssimd_rendition_info{{{SEL}}}) and {rungs}",
                   ref="D", instant=True, table=True),
        ],
        "transformations": merged_table(
            {"Value #A": "mean", "Value #B": "p5", "Value #C": "bitrate", "Value #D": "info"},
            ["title", "rendition", "mean", "p5", "bitrate", "codec"], hide=("info",)),
        "fieldConfig": {
            "defaults": {"decimals": 6},
            "overrides": [{"matcher": {"id": "byName", "options": "bitrate"},
                           "properties": [{"id": "unit", "value": "bps"},
                                          {"id": "decimals", "value": 0}]}],
        },
        "options": {"showHeader": True, "sortBy": [{"displayName": "mean", "desc": False}]},
    }


def ladder_panels(layout):
    return [
        ladder_xy(layout),
        ladder_below_floor(layout),
        timeseries(layout, "Ladder: rendition quality over time",
                   "Pooled mean score ($ladder_feature) of each rendition of the chosen title, as "
                   "its ladders were scored: a step is a re-encode (or a new source) that changed "
                   "the rung's quality.",
                   [target(f'max by (rendition) (ssimd_rendition_score{{{TSEL},'
                           f'feature="$ladder_feature",pool="mean"}})', "{{rendition}}")],
                   "none"),
        timeseries(layout, "Ladder: bitrate over time",
                   "Average bitrate of each rendition of the chosen title, as its ladders were "
                   "scored: with the panel on the left, whether a re-encode bought its quality "
                   "with bits.",
                   [target(f"8 * max by (rendition) (ssimd_rendition_bytes_per_second"
                           f"{{{TSEL}}})", "{{rendition}}")],
                   "bps"),
        timeseries(layout, "Ladder: where the time goes",
                   "Seconds per second spent in each stage, over all frames (so, busy cores): "
                   "decode and scale are the encoded files' decoding and upscaling on the CPU "
                   "(the source once per ladder, every rendition), the others the scoring "
                   "stages. A ladder bound by decoding shows decode on top.",
                   [target(f"sum by (stage) (rate(ssimd_frame_stage_seconds_sum{{{FSEL}}}"
                           f"[{RATE}]))", "{{stage}}")],
                   "s", stack=True),
        timeseries(layout, "Ladders tracked and evicted",
                   "Titles and renditions held in the ssimd_rendition_* series, and evictions "
                   "per second by reason: title_cap (a whole title, flag max_titles) or "
                   "rendition_cap (one rung, flag max_renditions_per_title).",
                   [target(f"sum(ssimd_ladder_titles_tracked{{{SEL}}})", "titles", "A"),
                    target(f"sum(ssimd_ladder_renditions_tracked{{{SEL}}})", "renditions", "B"),
                    target(f"sum by (reason) (rate(ssimd_ladder_evictions_total{{{SEL}}}"
                           f"[{RATE}]))", "evicted/s {{reason}}", "C")],
                   "short"),
    ]


def panels():
    layout = Layout()
    out = [row(layout, "Overview")]
    out += [
        stat(layout, "Throughput", "Frames scored per second, all pods.",
             f"sum(rate(ssimd_frames_scored_total{{{FSEL}}}[{RATE}]))", "short"),
        stat(layout, "Active streams", "Clips being scored now.",
             f"sum(ssimd_active_streams{{{SEL}}})", "short"),
        stat(layout, "Frames in flight", "Frames received and not yet answered.",
             f"sum(ssimd_frames_in_flight{{{SEL}}})", "short"),
        stat(layout, "Usable GPUs", "GPU devices serving, all pods (0: everything runs on the CPU).",
             f"sum(ssimd_devices{{{SEL}}})", "short"),
        stat(layout, "Fallback share", "Share of frames scored on the CPU although a GPU was "
             "preferred.",
             f"sum(rate(ssimd_fallbacks_total{{{FSEL}}}[{RATE}])) / "
             f"sum(rate(ssimd_frames_scored_total{{{FSEL}}}[{RATE}]))",
             "percentunit", [(0.01, "orange"), (0.05, "red")]),
        stat(layout, "Server error share", "Share of RPCs ending INTERNAL, UNKNOWN, DATA_LOSS or "
             "UNAVAILABLE.",
             f'sum(rate(ssimd_rpcs_total{{{SEL},code=~"INTERNAL|UNKNOWN|DATA_LOSS|UNAVAILABLE"}}'
             f"[{RATE}])) / sum(rate(ssimd_rpcs_total{{{SEL}}}[{RATE}]))",
             "percentunit", [(0.01, "orange"), (0.05, "red")]),
    ]

    out.append(row(layout, "Throughput and latency"))
    out += [
        timeseries(layout, "Frames per second by backend",
                   "Frames scored per second, by backend (gpu, cpu) and requested feature set.",
                   [target(f"sum by (backend, feature) (rate(ssimd_frames_scored_total{{{FSEL}}}"
                           f"[{RATE}]))", "{{backend}} {{feature}}")],
                   "short", stack=True),
        timeseries(layout, "Frame latency (arrival to scores)",
                   "Percentiles of the whole frame's time in the engine, by backend.",
                   quantile_targets("ssimd_frame_seconds", "backend", "{{backend}}"), "s"),
    ]
    for q in (0.5, 0.95, 0.99):
        out.append(timeseries(
            layout, f"Stage latency p{int(q * 100)}",
            "Time per frame in each stage: decode and scale (encoded files' decoding and "
            "upscaling, on the CPU), queue_wait (waiting for a device slot or CPU worker), "
            "upload (host to device), compute (kernels, or the CPU arithmetic), readback (device "
            "to host), host_finish (sums, means, dB).",
            [target(f"histogram_quantile({q}, sum by (le, stage, backend) "
                    f"(rate(ssimd_frame_stage_seconds_bucket{{{FSEL}}}[{RATE}])))",
                    "{{backend}} {{stage}}")],
            "s", width=8))

    out.append(row(layout, "Fallbacks and errors"))
    out += [
        timeseries(layout, "Fallbacks by reason",
                   "Frames per second scored on the CPU although a GPU was preferred. "
                   "gpu_unavailable: no usable device; context_refused: the device cannot serve "
                   "the request; device_error: the device failed. The logs hold the full reason, "
                   "once per stream.",
                   [target(f"sum by (reason, feature) (rate(ssimd_fallbacks_total{{{FSEL}}}"
                           f"[{RATE}]))", "{{reason}} {{feature}}")],
                   "short", stack=True),
        timeseries(layout, "RPC errors by method and code",
                   "RPCs per second that did not end OK.",
                   [target(f'sum by (method, code) (rate(ssimd_rpcs_total{{{SEL},code!="OK"}}'
                           f"[{RATE}]))", "{{method}} {{code}}")],
                   "reqps", stack=True),
        timeseries(layout, "RPCs by method",
                   "Finished RPCs per second, by method and status code.",
                   [target(f"sum by (method, code) (rate(ssimd_rpcs_total{{{SEL}}}[{RATE}]))",
                           "{{method}} {{code}}")],
                   "reqps"),
        timeseries(layout, "Decode errors by kind",
                   "ScoreFiles and ScoreLadder calls per second that failed on a file that could "
                   "not be decoded: not_media, truncated, no_video_stream, unsupported_codec, "
                   "unsupported_format, over_limits, corrupt_stream, stream_change. The error "
                   "message (in the client's status and the server's log) names the file and "
                   "frame.",
                   [target(f"sum by (kind) (rate(ssimd_decode_errors_total{{{SEL}}}[{RATE}]))",
                           "{{kind}}")],
                   "reqps", stack=True),
    ]

    out.append(row(layout, "GPU decoding and upscaling"))
    out += [
        timeseries(layout, "Decoded frames by backend",
                   "Frames of encoded files decoded per second: on the CPU, or by the GPU's video "
                   "engine (nvdec, vaapi; --hw_decode).",
                   [target(f"sum by (backend) (rate(ssimd_decoded_frames_total{{{SEL}}}"
                           f"[{RATE}]))", "{{backend}}")],
                   "short", width=6, stack=True),
        timeseries(layout, "Decode fallbacks by reason",
                   "Files per second meant for the GPU's video engine that decoded on the CPU: "
                   "no_device, codec, format, sessions_busy, engine_limits, engine_refused. "
                   "Scores are the same; only speed differs.",
                   [target(f"sum by (reason) (rate(ssimd_decode_fallbacks_total{{{SEL}}}"
                           f"[{RATE}]))", "{{reason}}")],
                   "short", width=6, stack=True),
        timeseries(layout, "Decoder sessions in use",
                   "Decoder sessions held on the GPU's video engine, against --hw_decode_sessions.",
                   [target(f"sum by (pod) (ssimd_decode_sessions_in_use{{{SEL}}})",
                           "{{pod}} in use", "A"),
                    target(f"sum by (pod) (ssimd_decode_sessions{{{SEL}}})", "{{pod}} total",
                           "B")],
                   "short", width=6),
        timeseries(layout, "Video decoder utilization",
                   "Share of the time the GPU's video decoders (NVDEC) worked, as the driver "
                   "samples it. Low while renditions decode on the CPU: see the fallbacks.",
                   [target(f"max by (pod) (ssimd_decode_engine_utilization_ratio{{{SEL}}})",
                           "{{pod}}")],
                   "percentunit", width=6),
        timeseries(layout, "Upscales by where, and fallbacks",
                   "Ladder renditions per second upscaled by the scoring backend with "
                   "libswscale's filters (scorer) or by libswscale on the CPU, and upscales that "
                   "stayed on the CPU although the GPU scored (by reason).",
                   [target(f"sum by (where) (rate(ssimd_upscales_total{{{SEL}}}[{RATE}]))",
                           "{{where}}", "A"),
                    target(f"sum by (reason) (rate(ssimd_upscale_fallbacks_total{{{SEL}}}"
                           f"[{RATE}]))", "fallback {{reason}}", "B")],
                   "short", width=6),
    ]

    out.append(row(layout, "Devices"))
    out += [
        timeseries(layout, "Device slots in use",
                   "Stream slots leased per GPU, against the total (a device saturates when they "
                   "match).",
                   [target(f"sum by (pod, device) (ssimd_device_slots_in_use{{{SEL}}})",
                           "{{pod}} gpu {{device}} in use", "A"),
                    target(f"sum by (pod, device) (ssimd_device_slots{{{SEL}}})",
                           "{{pod}} gpu {{device}} total", "B")],
                   "short", width=8),
        timeseries(layout, "Device memory in use",
                   "Device memory ssimd holds per GPU.",
                   [target(f"sum by (pod, device) (ssimd_device_memory_used_bytes{{{SEL}}})",
                           "{{pod}} gpu {{device}}")],
                   "bytes", width=8),
        timeseries(layout, "Frames per second by device",
                   "Frames scored per second on each GPU.",
                   [target(f"sum by (pod, device) (rate(ssimd_device_frames_total{{{SEL}}}"
                           f"[{RATE}]))", "{{pod}} gpu {{device}}")],
                   "short", width=8),
    ]

    out.append(row(layout, "Quality"))
    out += [
        timeseries(layout, "Frame score percentiles (fleet)",
                   "Low percentiles of per-frame SSIM across all clips, by metric name (the "
                   "feature-set filter does not apply: these are per score, not per request); a "
                   "drop means worse encodes somewhere in the fleet.",
                   [target(f"histogram_quantile({q}, sum by (le, feature) "
                           f"(rate(ssimd_frame_score_bucket{{{SEL}}}[{RATE}])))",
                           f"p{int(q * 100)} {{{{feature}}}}", ref)
                    for q, ref in ((0.05, "A"), (0.5, "B"))],
                   "none"),
        timeseries(layout, "Titles tracked and evicted",
                   "Titles held in the per-title table, and evictions per second (steady "
                   "evictions: raise metrics_max_titles or accept that the table shows only "
                   "recent titles).",
                   [target(f"sum(ssimd_titles_tracked{{{SEL}}})", "tracked", "A"),
                    target(f"sum(rate(ssimd_title_evictions_total{{{SEL}}}[{RATE}]))",
                           "evicted/s", "B")],
                   "short"),
        title_table(layout),
    ]

    out.append(row(layout, "Ladder"))
    out += ladder_panels(layout)
    return out


def dashboard():
    return {
        "title": "ssimd",
        "uid": "ssimd-overview",
        "description": "ssimd: SSIM scoring throughput, latency per stage, fallbacks, errors, "
                       "devices, per-title quality and ladders. See docs/operations.md.",
        "tags": ["ssimd", "video-quality", "gpu"],
        "editable": True,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "timezone": "utc",
        "graphTooltip": 1,
        "templating": {"list": [
            {"name": "datasource", "label": "Data source", "type": "datasource",
             "query": "prometheus", "current": {}, "hide": 0},
            {"name": "job", "label": "Job", "type": "query", "datasource": DATASOURCE,
             "query": {"query": "label_values(ssimd_active_streams, job)", "refId": "job"},
             "definition": "label_values(ssimd_active_streams, job)",
             "refresh": 2, "includeAll": True, "multi": True, "allValue": ".+",
             "current": {"text": "All", "value": "$__all"}},
            {"name": "feature", "label": "Feature set", "type": "query",
             "datasource": DATASOURCE,
             "query": {"query": "label_values(ssimd_frames_scored_total, feature)",
                       "refId": "feature"},
             "definition": "label_values(ssimd_frames_scored_total, feature)",
             "refresh": 2, "includeAll": True, "multi": True, "allValue": ".*",
             "current": {"text": "All", "value": "$__all"}},
            {"name": "title", "label": "Title (ladder)", "type": "query", "datasource": DATASOURCE,
             "query": {"query": "label_values(ssimd_rendition_bytes_per_second, title)",
                       "refId": "title"},
             "definition": "label_values(ssimd_rendition_bytes_per_second, title)",
             "refresh": 2, "includeAll": False, "multi": False, "sort": 1},
            # Every metric the server keeps per rendition (each feature's headline: float_ssim,
            # ssim, psnr_y, float_ms_ssim), as the scored ladders have them.
            {"name": "ladder_feature", "label": "Ladder metric", "type": "query",
             "datasource": DATASOURCE,
             "query": {"query": "label_values(ssimd_rendition_score, feature)",
                       "refId": "ladder_feature"},
             "definition": "label_values(ssimd_rendition_score, feature)",
             "refresh": 2, "includeAll": False, "multi": False, "sort": 1,
             "current": {"text": "float_ssim", "value": "float_ssim"}},
            # In the chosen metric's unit: e.g. 0.95 for the SSIMs, 35 (dB) for psnr_y.
            {"name": "floor", "label": "Quality floor", "type": "textbox", "query": "0.95",
             "current": {"text": "0.95", "value": "0.95"},
             "options": [{"text": "0.95", "value": "0.95", "selected": True}]},
        ]},
        "annotations": {"list": []},
        "panels": panels(),
    }


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "ssimd-dashboard.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dashboard(), f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
