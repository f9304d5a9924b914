#!/usr/bin/env python3
"""Turn a zk-lock benchmark run into a markdown table and an SVG chart.

Usage: bench_report.py DIR

Reads DIR/jmh-result.json (JMH's JSON) and DIR/run-info.json (written by
BenchmarkSuite), writes DIR/results.md and DIR/chart.svg, and prints the target
checks. It also trims DIR/jmh-result.json to the figures read here (dropping
JMH's raw samples and histograms, some megabytes), so that it can be committed.
Python 3 standard library only.
"""

import json
import math
import os
import sys
from xml.sax.saxutils import escape

PACKAGE = "dev.zklock.bench."

# (benchmark, label, raw Curator counterpart or None)
UNCONTENDED = [
    ("UncontendedBenchmarks.zooKeeperFloor", "Raw ZooKeeper create(EPHEMERAL_SEQUENTIAL) + delete: the floor", None),
    ("UncontendedBenchmarks.curatorMutex", "Raw Curator InterProcessMutex", None),
    ("UncontendedBenchmarks.annotatedMutex", "@DistributedLock MUTEX (Spring proxy)", "UncontendedBenchmarks.curatorMutex"),
    ("UncontendedBenchmarks.annotatedMutexWithMetrics", "@DistributedLock MUTEX with metrics (Micrometer)",
     "UncontendedBenchmarks.curatorMutex"),
    ("UncontendedBenchmarks.templateMutex", "LockTemplate MUTEX", "UncontendedBenchmarks.curatorMutex"),
    ("UncontendedBenchmarks.springIntegrationLock", "Spring Integration ZookeeperLockRegistry lock()",
     "UncontendedBenchmarks.curatorMutex"),
    ("UncontendedBenchmarks.springIntegrationTryLock", "Spring Integration ZookeeperLockRegistry tryLock(10 s)",
     "UncontendedBenchmarks.curatorMutex"),
    ("UncontendedBenchmarks.curatorRead", "Raw Curator InterProcessReadWriteLock read", None),
    ("UncontendedBenchmarks.annotatedRead", "@DistributedLock READ", "UncontendedBenchmarks.curatorRead"),
    ("UncontendedBenchmarks.curatorWrite", "Raw Curator InterProcessReadWriteLock write", None),
    ("UncontendedBenchmarks.annotatedWrite", "@DistributedLock WRITE", "UncontendedBenchmarks.curatorWrite"),
    ("UncontendedBenchmarks.curatorSemaphore", "Raw Curator InterProcessSemaphoreV2 (1 permit)", None),
    ("UncontendedBenchmarks.annotatedSemaphore", "@DistributedLock SEMAPHORE (1 permit)",
     "UncontendedBenchmarks.curatorSemaphore"),
]

CONTESTANTS = [
    ("zkLock", "@DistributedLock (zk-lock)"),
    ("curatorPerThread", "Raw Curator, one InterProcessMutex per thread"),
    ("curatorShared", "Raw Curator, one InterProcessMutex shared by all threads"),
    ("springIntegration", "Spring Integration ZookeeperLockRegistry"),
]

SETTINGS = [
    ("8 threads, 1 JVM", "ContendedBenchmarks.{}8"),
    ("32 threads, 1 JVM", "ContendedBenchmarks.{}32"),
    ("2 JVMs x 4 threads", "TwoJvmBenchmarks.{}"),
]

COLORS = {
    "zkLock": "#1f6fb2",
    "curatorPerThread": "#7f7f7f",
    "curatorShared": "#c4c4c4",
    "springIntegration": "#e0873a",
}


# the paired run's modes: (parameter, metric prefix, label, Curator's recipe, separate zk-lock row, separate Curator row)
MODES = [
    ("MUTEX", "paired.", "MUTEX", "InterProcessMutex", "annotatedMutex", "curatorMutex"),
    ("READ", "paired-read.", "READ", "InterProcessReadWriteLock read", "annotatedRead", "curatorRead"),
    ("WRITE", "paired-write.", "WRITE", "InterProcessReadWriteLock write", "annotatedWrite", "curatorWrite"),
    ("SEMAPHORE1", "paired-semaphore1.", "SEMAPHORE(1)", "InterProcessSemaphoreV2, 1 lease", "annotatedSemaphore",
     "curatorSemaphore"),
    ("SEMAPHORE3", "paired-semaphore3.", "SEMAPHORE(3)", "InterProcessSemaphoreV2, 3 leases", None, None),
]

# ZooKeeper request types counted by the clients (OpCounts.TYPES); the first five get a column each
OP_TYPES = ["create", "getChildren", "getData/exists", "setData", "delete", "removeWatches", "sync", "multi", "other"]
MAIN_OP_TYPES = OP_TYPES[:5]
OP_TYPES_HEADER = "create / getChildren / getData+exists / setData / delete (+ others)"

ALTERNATING = [("8 threads, 1 JVM", 8), ("32 threads, 1 JVM", 32)]

ALT_LABELS = {
    "zkLock": "@DistributedLock (zk-lock)",
    "curatorPerThread": "Raw Curator, one instance per thread",
}


def load(directory):
    with open(os.path.join(directory, "jmh-result.json"), encoding="utf-8") as f:
        entries = json.load(f)
    info_file = os.path.join(directory, "run-info.json")
    info = {}
    if os.path.exists(info_file):
        with open(info_file, encoding="utf-8") as f:
            info = json.load(f)
    results = {}
    for e in entries:
        if not e["benchmark"].startswith(PACKAGE):
            continue
        name = e["benchmark"][len(PACKAGE):]
        results.setdefault(name, e)
        if e.get("params"):
            # a row per parameter value, such as PairedBenchmarks.floorCuratorAnnotated:READ
            results[name + ":" + ",".join(str(v) for v in e["params"].values())] = e
    return results, info


# what trim() keeps of each metric: enough to write the report again
PRIMARY_FIELDS = ("score", "scoreError", "scoreConfidence", "scorePercentiles", "scoreUnit")
SECONDARY_FIELDS = ("score", "scoreError", "scoreUnit")
PERCENTILES = ("50.0", "99.0")


def trim(directory):
    """Rewrite DIR/jmh-result.json with only the fields this script reads."""
    path = os.path.join(directory, "jmh-result.json")
    with open(path, encoding="utf-8") as f:
        entries = json.load(f)
    for entry in entries:
        primary = {k: v for k, v in entry["primaryMetric"].items() if k in PRIMARY_FIELDS}
        if "scorePercentiles" in primary:
            primary["scorePercentiles"] = {p: v for p, v in primary["scorePercentiles"].items() if p in PERCENTILES}
        entry["primaryMetric"] = primary
        entry["secondaryMetrics"] = {name: {k: v for k, v in metric.items() if k in SECONDARY_FIELDS}
                                     for name, metric in entry.get("secondaryMetrics", {}).items()}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=4)
        f.write("\n")


def number(value):
    """A JSON number, or None for a missing value or JMH's "NaN"."""
    if isinstance(value, (int, float)) and not math.isnan(value):
        return float(value)
    return None


def secondary(entry, name):
    metric = entry.get("secondaryMetrics", {}).get(name)
    return number(metric.get("score")) if metric else None


def micros(value, unit):
    factor = {"ns/op": 0.001, "us/op": 1.0, "ms/op": 1000.0, "s/op": 1_000_000.0}[unit]
    return value * factor


def fmt(value, digits=0):
    if value is None:
        return "n/a"
    if digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def uncontended_rows(results):
    rows = []
    for name, label, baseline in UNCONTENDED:
        entry = results.get(name)
        if entry is None:
            continue
        metric = entry["primaryMetric"]
        unit = metric["scoreUnit"]
        median = micros(metric["scorePercentiles"]["50.0"], unit)
        p99 = micros(metric["scorePercentiles"]["99.0"], unit)
        mean = micros(metric["score"], unit)
        rows.append({
            "name": name, "label": label, "baseline": baseline, "median": median, "p99": p99, "mean": mean,
            "cps": 1_000_000.0 / mean, "ops": secondary(entry, "zk.ops"), "alloc": secondary(entry, "gc.alloc.rate.norm"),
            "cpu": secondary(entry, "cpu.us"),
        })
    by_name = {row["name"]: row for row in rows}
    floor = by_name.get("UncontendedBenchmarks.zooKeeperFloor")
    for row in rows:
        base = by_name.get(row["baseline"]) if row["baseline"] else None
        row["vs_curator"] = row["median"] / base["median"] if base else None
        row["vs_floor"] = row["median"] / floor["median"] if floor else None
    return rows, by_name


def contended_rows(results):
    rows = []
    for setting, pattern in SETTINGS:
        for key, label in CONTESTANTS:
            entry = results.get(pattern.format(key))
            if entry is None:
                continue
            metric = entry["primaryMetric"]
            ratio = secondary(entry, "acquisitions.ratio") or 1.0
            if not setting.startswith("2 JVMs"):
                ratio = 1.0
            rows.append({
                "setting": setting, "key": key, "label": label,
                "rate": metric["score"] * ratio, "error": (number(metric.get("scoreError")) or 0.0) * ratio,
                "threads": entry["threads"], "p50": secondary(entry, "handoff.p50"),
                "p99": secondary(entry, "handoff.p99"), "ops": secondary(entry, "zk.ops"),
                "alloc": secondary(entry, "gc.alloc.rate.norm"), "cpu": secondary(entry, "cpu.us"),
                "types": {t: secondary(entry, "zk." + t) for t in OP_TYPES},
            })
    return rows


def types_text(types):
    """Requests per cycle by type: the five main types, then any other type that occurs."""
    if not types or all(types.get(t) is None for t in MAIN_OP_TYPES):
        return "n/a"
    text = " / ".join(fmt(types.get(t), 2) for t in MAIN_OP_TYPES)
    others = [f"{t} {types[t]:.2f}" for t in OP_TYPES[5:] if types.get(t) and types[t] >= 0.005]
    return text + (f" (+ {', '.join(others)})" if others else "")


def alternating_figures(entry, prefix, roles=()):
    """Per contestant: rate, requests per acquisition (all and by type), hand-off median, rate by role."""
    out = {}
    if entry is None:
        return out
    for name in ("zkLock", "curatorPerThread"):
        acquisitions = secondary(entry, f"{prefix}.{name}.acquisitions")
        seconds = secondary(entry, f"{prefix}.{name}.seconds")
        if not acquisitions or not seconds:
            continue
        packets = secondary(entry, f"{prefix}.{name}.packets")
        types = {}
        for t in OP_TYPES:
            count = secondary(entry, f"{prefix}.{name}.zk.{t}")
            types[t] = count / acquisitions if count is not None else None
        p50sum = secondary(entry, f"{prefix}.{name}.handoff.p50sum")
        iterations = secondary(entry, f"{prefix}.{name}.handoff.iterations")
        fig = {"rate": acquisitions / seconds, "ops": packets / acquisitions if packets is not None else None,
               "types": types, "handoff": p50sum / iterations if p50sum is not None and iterations else None}
        for role in roles:
            count = secondary(entry, f"{prefix}.{name}.{role}.acquisitions")
            fig[role] = count / seconds if count is not None else None
        out[name] = fig
    return out


def paired_figures(results):
    """Per mode: the interleaved run's medians, ratios and requests per cycle (all and by type) of each kind."""
    modes = {}
    for mode, prefix, _, _, _, _ in MODES:
        entry = results.get(f"PairedBenchmarks.floorCuratorAnnotated:{mode}")
        if entry is None or secondary(entry, prefix + "annotated.p50") is None:
            continue
        fig = {}
        for kind in ("floor", "curator", "annotated"):
            fig[kind] = {q: secondary(entry, f"{prefix}{kind}.{q}") for q in ("p50", "p99", "mean", "cpu")}
            fig[kind]["ops"] = secondary(entry, f"{prefix}{kind}.zk.ops")
            fig[kind]["types"] = {t: secondary(entry, f"{prefix}{kind}.zk.{t}") for t in OP_TYPES}
        for ratio in ("annotated/curator.p50", "annotated/curator.mean", "annotated/floor.p50", "curator/floor.p50"):
            fig[ratio] = secondary(entry, prefix + ratio)
        modes[mode] = fig
    return modes


def many_keys_row(results):
    entry = results.get("ManyKeysBenchmark.lockDistinctKeys")
    if entry is None:
        return None
    keys = int(entry["params"]["keys"])
    metric = entry["primaryMetric"]
    shot = micros(metric["score"], metric["scoreUnit"])
    ops = secondary(entry, "zk.ops")
    alloc = secondary(entry, "gc.alloc.rate.norm")
    cpu = secondary(entry, "cpu.us")
    return {
        "cpu": cpu / keys if cpu is not None else None,
        "keys": keys, "per_key": shot / keys, "ops": ops / keys if ops is not None else None,
        "alloc": alloc / keys if alloc is not None else None, "left": secondary(entry, "sweep.znodesLeft"),
        "sweep": secondary(entry, "sweep.seconds"),
    }


def side_by_side(results):
    """Figures of the interleaved and alternating runs, or None where not run."""
    paired = results.get("PairedBenchmarks.floorCuratorAnnotated:MUTEX")
    alternating = results.get("AlternatingBenchmarks.zkLockAndCuratorPerThread32")
    figures = {"modes": paired_figures(results), "alt": {}}
    for setting, threads in ALTERNATING:
        figures["alt"][setting] = alternating_figures(
            results.get(f"AlternatingBenchmarks.zkLockAndCuratorPerThread{threads}"), f"alternating{threads}")
    figures["semaphore"] = alternating_figures(
        results.get("SemaphoreContentionBenchmarks.zkLockAndCuratorSemaphore12"), "semaphore12")
    figures["readHeavy"] = alternating_figures(results.get("ReadHeavyBenchmarks.readHeavy"), "readHeavy",
                                               ("reader", "writer"))
    if paired:
        for kind in ("floor", "curator", "annotated"):
            figures[kind] = {q: secondary(paired, f"paired.{kind}.{q}") for q in ("p50", "p99", "mean", "cpu")}
        figures["annotated/curator.p50"] = secondary(paired, "paired.annotated/curator.p50")
        figures["annotated/curator.mean"] = secondary(paired, "paired.annotated/curator.mean")
        figures["annotated/floor.p50"] = secondary(paired, "paired.annotated/floor.p50")
        figures["curator/floor.p50"] = secondary(paired, "paired.curator/floor.p50")
    for name, fig in figures["alt"].get("32 threads, 1 JVM", {}).items():
        figures["alt." + name] = fig["rate"]
    if alternating and not figures["alt"].get("32 threads, 1 JVM"):
        # a result file from before the 8-thread run, with alternating.* names
        for name in ("zkLock", "curatorPerThread"):
            acquisitions = secondary(alternating, f"alternating.{name}.acquisitions")
            seconds = secondary(alternating, f"alternating.{name}.seconds")
            figures["alt." + name] = acquisitions / seconds if acquisitions and seconds else None
    return figures


def check_targets(unc, cont, sbs):
    checks = []
    annotated = unc.get("UncontendedBenchmarks.annotatedMutex")
    curator = unc.get("UncontendedBenchmarks.curatorMutex")
    floor = unc.get("UncontendedBenchmarks.zooKeeperFloor")
    if sbs.get("annotated/curator.p50") is not None:
        ratio = sbs["annotated/curator.p50"]
        measured = f"{ratio:.3f} interleaved (mean: {sbs['annotated/curator.mean']:.3f})"
        if annotated and curator:
            measured += (f"; separate rows {annotated['median'] / curator['median']:.3f} "
                         f"(mean: {annotated['mean'] / curator['mean']:.3f})")
        checks.append(("annotated call / raw Curator, uncontended MUTEX (median)", "<= 1.05", measured,
                       ratio <= 1.05))
    elif annotated and curator:
        ratio = annotated["median"] / curator["median"]
        mean_ratio = annotated["mean"] / curator["mean"]
        checks.append(("annotated call / raw Curator, uncontended MUTEX (median)", "<= 1.05",
                       f"{ratio:.3f} separate rows (mean: {mean_ratio:.3f})", ratio <= 1.05))
    if annotated and curator:
        if annotated["ops"] is not None and curator["ops"] is not None:
            checks.append(("ZooKeeper operations per uncontended MUTEX cycle", "<= raw Curator (3)",
                           f"{annotated['ops']:.2f} vs {curator['ops']:.2f}",
                           annotated["ops"] <= curator["ops"] + 0.05))
    by = {(row["setting"], row["key"]): row for row in cont}
    ours = by.get(("32 threads, 1 JVM", "zkLock"))
    per_thread = by.get(("32 threads, 1 JVM", "curatorPerThread"))
    shared = by.get(("32 threads, 1 JVM", "curatorShared"))
    alt_ours, alt_theirs = sbs.get("alt.zkLock"), sbs.get("alt.curatorPerThread")
    if alt_ours and alt_theirs:
        ratio = alt_ours / alt_theirs
        measured = f"{ratio:.3f} alternating ({fmt(alt_ours)} vs {fmt(alt_theirs)} acq/s)"
        if ours and per_thread:
            measured += f"; separate rows {ours['rate'] / per_thread['rate']:.3f}"
        if ours and shared:
            measured += f"; zk-lock vs shared instance {ours['rate'] / shared['rate']:.2f}x"
        checks.append(("32 threads, one key: zk-lock / Curator one-mutex-per-thread", ">= 1.00", measured,
                       ratio >= 1.0))
    elif ours and per_thread:
        ratio = ours["rate"] / per_thread["rate"]
        overlap = ours["rate"] + ours["error"] >= per_thread["rate"] - per_thread["error"]
        verdict = True if ratio >= 1.0 else ("within error" if overlap else False)
        extra = f"; vs shared instance {ours['rate'] / shared['rate']:.2f}x" if shared else ""
        checks.append(("32 threads, one key: zk-lock / Curator one-mutex-per-thread", ">= 1.00",
                       f"{ratio:.3f} separate rows ({fmt(ours['rate'])} vs {fmt(per_thread['rate'])} acq/s{extra})",
                       verdict))
    stretch = "stretch (getChildren pipelined): uncontended cycle / create+delete floor (median)"
    if sbs.get("annotated/floor.p50") is not None:
        ratio = sbs["annotated/floor.p50"]
        checks.append((stretch, "<= 1.25",
                       f"{ratio:.2f} interleaved (raw Curator: {sbs['curator/floor.p50']:.2f})", ratio <= 1.25))
    elif annotated and floor:
        ratio = annotated["median"] / floor["median"]
        checks.append((stretch, "<= 1.25",
                       f"{ratio:.2f} separate rows (raw Curator: {curator['median'] / floor['median']:.2f})" if curator
                       else f"{ratio:.2f} separate rows", ratio <= 1.25))
    return checks


def targets(unc, cont, sbs):
    """The targets of issue #14: (measure, target, measured, verdict) rows."""
    checks = []
    modes = sbs.get("modes", {})
    floor = unc.get("UncontendedBenchmarks.zooKeeperFloor")
    for mode, _, label, _, ours_row, curator_row in MODES:
        fig = modes.get(mode)
        ours = unc.get(f"UncontendedBenchmarks.{ours_row}") if ours_row else None
        theirs = unc.get(f"UncontendedBenchmarks.{curator_row}") if curator_row else None
        measure = f"uncontended cycle / raw create+delete floor, median: {label}"
        if fig and fig["annotated/floor.p50"] is not None:
            ratio = fig["annotated/floor.p50"]
            measured = (f"{ratio:.2f} interleaved ({fmt(fig['annotated']['p50'])} vs {fmt(fig['floor']['p50'])} µs; "
                        f"Curator {fmt(fig['curator/floor.p50'], 2)})")
            if ours and floor:
                measured += f"; separate rows {ours['median'] / floor['median']:.2f}"
            checks.append((measure, "≤ 1.25", measured, ratio <= 1.25))
        elif ours and floor:
            ratio = ours["median"] / floor["median"]
            checks.append((measure, "≤ 1.25", f"{ratio:.2f} separate rows", ratio <= 1.25))
        else:
            checks.append((measure, "≤ 1.25", "not run", "not run"))
    for mode, _, label, _, ours_row, curator_row in MODES:
        fig = modes.get(mode)
        ours = unc.get(f"UncontendedBenchmarks.{ours_row}") if ours_row else None
        theirs = unc.get(f"UncontendedBenchmarks.{curator_row}") if curator_row else None
        measure = f"ZooKeeper operations per uncontended cycle: {label}"
        if fig and fig["annotated"]["ops"] is not None:
            ops = fig["annotated"]["ops"]
            measured = (f"{ops:.2f} ({types_text(fig['annotated']['types'])}); "
                        f"Curator {fmt(fig['curator']['ops'], 2)}")
        elif ours and ours["ops"] is not None:
            ops = ours["ops"]
            measured = f"{ops:.2f} separate row" + (f"; Curator {fmt(theirs['ops'], 2)}" if theirs else "")
        else:
            checks.append((measure, "3", "not run", "not run"))
            continue
        checks.append((measure, "3", measured, ops <= 3.05))
    semaphore = sbs.get("semaphore", {})
    measure = "SEMAPHORE 3 permits, 12 threads, one key: acquisitions/s vs InterProcessSemaphoreV2 (one per thread)"
    if "zkLock" in semaphore and "curatorPerThread" in semaphore:
        ours, theirs = semaphore["zkLock"], semaphore["curatorPerThread"]
        ratio = ours["rate"] / theirs["rate"]
        checks.append((measure, "≥ 2×", f"{ratio:.2f}× alternating ({fmt(ours['rate'])} vs {fmt(theirs['rate'])}/s; "
                       f"{fmt(ours['ops'], 2)} vs {fmt(theirs['ops'], 2)} ZooKeeper ops/acquisition)", ratio >= 2.0))
    else:
        checks.append((measure, "≥ 2×", "not run", "not run"))
    by = {(row["setting"], row["key"]): row for row in cont}
    settings_ = [setting for setting, _ in ALTERNATING] + ["2 JVMs x 4 threads"]
    handoffs = []
    for setting in settings_:
        alt = sbs.get("alt", {}).get(setting, {})
        ours, theirs = by.get((setting, "zkLock")), by.get((setting, "curatorPerThread"))
        measure = f"contended one key, {setting}: acquisitions/s vs Curator, one InterProcessMutex per thread"
        if "zkLock" in alt and "curatorPerThread" in alt:
            ratio = alt["zkLock"]["rate"] / alt["curatorPerThread"]["rate"]
            measured = (f"{ratio:.2f}× alternating ({fmt(alt['zkLock']['rate'])} vs "
                        f"{fmt(alt['curatorPerThread']['rate'])}/s)")
            if ours and theirs:
                measured += f"; separate rows {ours['rate'] / theirs['rate']:.2f}×"
            checks.append((measure, "≥ 1.2×", measured, ratio >= 1.2))
        elif ours and theirs:
            ratio = ours["rate"] / theirs["rate"]
            checks.append((measure, "≥ 1.2×", f"{ratio:.2f}× separate rows ({fmt(ours['rate'])} vs "
                           f"{fmt(theirs['rate'])}/s)", ratio >= 1.2))
        else:
            checks.append((measure, "≥ 1.2×", "not run", "not run"))
        measure = f"hand-off median, contended one key, {setting}"
        alt_ours = alt.get("zkLock", {}).get("handoff")
        alt_theirs = alt.get("curatorPerThread", {}).get("handoff")
        if alt_ours is not None and alt_theirs is not None:
            measured = f"{fmt(alt_ours)} vs Curator's {fmt(alt_theirs)} µs alternating"
            if ours and theirs and ours["p50"] is not None and theirs["p50"] is not None:
                measured += f"; separate rows {fmt(ours['p50'])} vs {fmt(theirs['p50'])} µs"
            handoffs.append((measure, "below Curator's", measured, alt_ours < alt_theirs))
        elif ours and theirs and ours["p50"] is not None and theirs["p50"] is not None:
            handoffs.append((measure, "below Curator's", f"{fmt(ours['p50'])} vs Curator's {fmt(theirs['p50'])} µs "
                             "separate rows", ours["p50"] < theirs["p50"]))
        else:
            handoffs.append((measure, "below Curator's", "not run", "not run"))
    return checks + handoffs


def verdict_text(verdict):
    if verdict is None:
        return "info"
    if verdict in ("within error", "not run"):
        return verdict
    return "PASS" if verdict else "MISS"


def settings(results):
    """Iteration settings, the most common first, with the rows that differ."""
    groups = {}
    for name, entry in results.items():
        if entry["mode"] == "ss":
            key = f"{entry['warmupIterations']} warm-up and {entry['measurementIterations']} measured single shots"
        else:
            key = (f"{entry['warmupIterations']} x {entry['warmupTime']} warm-up, "
                   f"{entry['measurementIterations']} x {entry['measurementTime']} measured")
        groups.setdefault(key, []).append(name.split(".")[0])
    ordered = sorted(groups.items(), key=lambda item: -len(item[1]))
    parts = [ordered[0][0]]
    for key, names in ordered[1:]:
        parts.append(f"{', '.join(sorted(set(names)))}: {key}")
    return "; ".join(parts)


def plus_minus(row):
    return f"{fmt(row['rate'])} ± {fmt(row['error'])}" if row["error"] else fmt(row["rate"])


def markdown(unc_rows, cont_rows, many, checks, info, results, sbs, goals, hot=()):
    out = ["# zk-lock benchmark results", ""]
    sample = next(iter(results.values()), None)
    if info:
        out.append(f"Run {info.get('started', '?')} to {info.get('finished', '?')} ({info.get('mode', '?')} mode) on "
                   f"{info.get('cpu', '?')}, {info.get('cores', '?')} cores, {info.get('memory', '?')}, "
                   f"{info.get('os', '?')}, {info.get('java', '?')}.")
        out.append("")
        out.append(f"Load average (1, 5, 15 min) before: {' '.join(info.get('loadBefore', '?').split()[:3])}, "
                   f"after: {' '.join(info.get('loadAfter', '?').split()[:3])}.")
        out.append("")
        out.append(f"ZooKeeper {info.get('zookeeper', '?').split('-')[0]}: {info.get('zookeeperServer', '?')}; every "
                   "row uses one Curator client of a Spring context with zk-lock's auto-configuration.")
        out.append("")
    if sample:
        out.append(f"JMH {sample['jmhVersion']}, one fork per row, all rows in one run: {settings(results)}. "
                   "ZooKeeper operations are the server's `zk_packets_received` delta per cycle; allocation is "
                   "JMH's gc profiler (`gc.alloc.rate.norm`).")
        out.append("")
    out += list(hot)
    if all(verdict == "not run" for _, _, _, verdict in goals) and not checks:
        # a run of other rows only, such as the hot keys'
        out += ["![cycle time and contended throughput](chart.svg)", ""]
        return "\n".join(out)
    out += ["## Targets", "", "| measure | target | measured | result |", "| --- | --- | --- | --- |"]
    for measure, target, measured, verdict in goals:
        out.append(f"| {measure} | {target} | {measured} | {verdict_text(verdict)} |")
    out += ["", "Ratios to the floor and operations per cycle come from the interleaved run (each operation one floor, "
            "one Curator and one `@DistributedLock` cycle in turn); operations per cycle are counted on extra cycles "
            "of one kind at a time after each measured iteration (the server's request count), by type on the "
            "client. Contended ratios and hand-offs come from the alternating runs where there is one (zk-lock and "
            "Curator in alternate iterations, A B B A), else from the separate rows.", "",
            "### Earlier targets", "", "| measure | target | measured | result |", "| --- | --- | --- | --- |"]
    for measure, target, measured, verdict in checks:
        out.append(f"| {measure} | {target} | {measured} | {verdict_text(verdict)} |")
    out += ["", "## Uncontended: one thread, one key", "",
            "| row | median µs | p99 µs | cycles/s | ZooKeeper ops/cycle | allocated B/cycle | client CPU µs/cycle "
            "| median vs raw Curator | median vs floor |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in unc_rows:
        vs_curator = f"{row['vs_curator']:.3f}" if row["vs_curator"] is not None else ""
        vs_floor = f"{row['vs_floor']:.2f}" if row["vs_floor"] is not None else ""
        out.append(f"| {row['label']} | {fmt(row['median'])} | {fmt(row['p99'])} | {fmt(row['cps'])} | "
                   f"{fmt(row['ops'], 2)} | {fmt(row['alloc'])} | {fmt(row['cpu'])} | {vs_curator} | {vs_floor} |")
    out += ["", "cycles/s is 1 / mean cycle time of the one thread. Client CPU is the benchmark JVM's CPU time "
            "(all threads: ZooKeeper client I/O, garbage collection and JMH included) per cycle.", ""]
    if sbs:
        out += ["## Side by side", "",
                "Rows measured one after the other drift with the load of the machine. These runs measure "
                "the target pairs under the same conditions: the interleaved run times one floor cycle, one raw "
                "Curator cycle and one `@DistributedLock` cycle in turn, in rotating order, for every mode; the "
                "alternating runs give the threads zk-lock and raw Curator (one instance per thread) in alternate "
                "iterations (A B B A): MUTEX with 8 and 32 threads, SEMAPHORE with 3 permits and 12 threads, and "
                "8 readers with 1 writer.", ""]
        if "annotated" in sbs:
            out += ["| interleaved, one thread | median µs | p99 µs | mean µs | caller-thread CPU µs/cycle |",
                    "| --- | ---: | ---: | ---: | ---: |"]
            for kind, label in (("floor", "Raw ZooKeeper create + delete"), ("curator", "Raw Curator InterProcessMutex"),
                                ("annotated", "@DistributedLock MUTEX")):
                fig = sbs[kind]
                out.append(f"| {label} | {fmt(fig['p50'])} | {fmt(fig['p99'])} | {fmt(fig['mean'])} | "
                           f"{fmt(fig['cpu'])} |")
            out += ["", "Caller-thread CPU is the CPU time of the thread that locks, so it leaves out ZooKeeper's "
                    "client threads, garbage collection and the JIT: it is what the lock's own code costs.", ""]
        out += modes_section(sbs.get("modes", {}))
        out += alternating_section(sbs)
    out += [
            "## Contended: one key", "",
            "| setting | row | acquisitions/s | hand-off median µs | hand-off p99 µs | ZooKeeper ops/acquisition "
            f"| by type: {OP_TYPES_HEADER} | allocated B/acquisition | client CPU µs/acquisition |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in cont_rows:
        out.append(f"| {row['setting']} | {row['label']} | {plus_minus(row)} | "
                   f"{fmt(row['p50'])} | {fmt(row['p99'])} | {fmt(row['ops'], 2)} | {types_text(row['types'])} | "
                   f"{fmt(row['alloc'])} | {fmt(row['cpu'])} |")
    out += ["", "Hand-off: from the moment a holder starts to release to the moment the next waiter holds the lock, "
            "counted when that waiter was already waiting; across JVMs too (a shared memory-mapped board and the "
            "machine's monotonic clock). Two-JVM acquisitions/s count both JVMs; allocation counts the measured JVM.",
            ""]
    if many:
        out += ["## Many keys", "",
                "| row | keys | time per key µs | ZooKeeper ops/key | allocated B/key | client CPU µs/key "
                "| znodes left after the container sweep | waited s |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
                f"| @DistributedLock MUTEX, each key once | {many['keys']:,} | {fmt(many['per_key'])} | "
                f"{fmt(many['ops'], 2)} | {fmt(many['alloc'])} | {fmt(many['cpu'])} | {fmt(many['left'])} | "
                f"{fmt(many['sweep'])} |", "",
                "ZooKeeper removes empty container nodes in a background sweep (every 60 s, at most 10,000 a minute, "
                "with the server's defaults); the name node goes one sweep after its last key node. A new key costs "
                "more ZooKeeper operations than a known one because Curator creates its missing parent (checking "
                "each path segment first); ops/key include the benchmark's polling while it waits for the sweep.",
                ""]
    out += ["![cycle time and contended throughput](chart.svg)", ""]
    return "\n".join(out)


def modes_section(modes):
    if not modes:
        return []
    out = ["### Every mode against the floor, interleaved", "",
           "| mode | floor median µs | Curator median µs | `@DistributedLock` median µs | zk-lock / floor | "
           "Curator / floor | zk-lock / Curator | zk-lock ops/cycle | by type: " + OP_TYPES_HEADER +
           " | Curator ops/cycle | caller CPU µs/cycle zk-lock / Curator |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for mode, _, label, recipe, _, _ in MODES:
        fig = modes.get(mode)
        if not fig:
            continue
        out.append(f"| {label} (Curator: {recipe}) | {fmt(fig['floor']['p50'])} | {fmt(fig['curator']['p50'])} | "
                   f"{fmt(fig['annotated']['p50'])} | {fmt(fig['annotated/floor.p50'], 2)} | "
                   f"{fmt(fig['curator/floor.p50'], 2)} | {fmt(fig['annotated/curator.p50'], 3)} | "
                   f"{fmt(fig['annotated']['ops'], 2)} | {types_text(fig['annotated']['types'])} | "
                   f"{fmt(fig['curator']['ops'], 2)} | {fmt(fig['annotated']['cpu'])} / {fmt(fig['curator']['cpu'])} |")
    out += ["", "Ratios are the mean over the measured iterations of each iteration's ratio of medians. Each mode "
            "runs in its own fork; the floor is measured again in each.", ""]
    return out


def alternating_section(sbs):
    out = []
    rows = []
    for setting, _ in ALTERNATING:
        for name, fig in sbs.get("alt", {}).get(setting, {}).items():
            rows.append(f"| {setting}, MUTEX | {ALT_LABELS[name]} | {fmt(fig['rate'])} | {fmt(fig['handoff'])} | "
                        f"{fmt(fig['ops'], 2)} | {types_text(fig['types'])} |")
    for name, fig in sbs.get("semaphore", {}).items():
        rows.append(f"| SEMAPHORE, 3 permits, 12 threads | {ALT_LABELS[name]} | {fmt(fig['rate'])} | | "
                    f"{fmt(fig['ops'], 2)} | {types_text(fig['types'])} |")
    if rows:
        out += ["### Contended one key, alternating", "",
                "| run | contestant | acquisitions/s | hand-off median µs | ZooKeeper ops/acquisition | by type: "
                + OP_TYPES_HEADER + " |", "| --- | --- | ---: | ---: | ---: | ---: |"] + rows
        out += ["", "Curator's contestant is `InterProcessMutex` for MUTEX and `InterProcessSemaphoreV2` "
                "(3 leases) for SEMAPHORE, one instance per thread. Operations per acquisition: the server's request "
                "count over each contestant's iterations, ramp-up and ramp-down included; by type: counted by the "
                "clients (pings left out).", ""]
    heavy = sbs.get("readHeavy", {})
    if heavy:
        out += ["### READ-heavy: 8 readers + 1 writer, one key, alternating", "",
                "| contestant | reader acquisitions/s | writer acquisitions/s | all acquisitions/s | "
                "ZooKeeper ops/acquisition | by type: " + OP_TYPES_HEADER + " |",
                "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for name, fig in heavy.items():
            label = "@DistributedLock READ/WRITE (zk-lock)" if name == "zkLock" else \
                "Raw Curator, one InterProcessReadWriteLock per thread"
            out.append(f"| {label} | {fmt(fig['reader'])} | {fmt(fig['writer'])} | {fmt(fig['rate'])} | "
                       f"{fmt(fig['ops'], 2)} | {types_text(fig['types'])} |")
        out.append("")
    return out


def contended_bars(cont_rows, sbs):
    """(setting, label, rate, color) of every contended bar: the separate rows, then the alternating runs."""
    bars = [(row["setting"], row["label"], row["rate"], COLORS[row["key"]]) for row in cont_rows]
    for setting, _ in ALTERNATING:
        for name, fig in sbs.get("alt", {}).get(setting, {}).items():
            bars.append((f"{setting}, alternating", ALT_LABELS[name], fig["rate"], COLORS[name]))
    for name, fig in sbs.get("semaphore", {}).items():
        label = "@DistributedLock SEMAPHORE" if name == "zkLock" else "Raw Curator InterProcessSemaphoreV2 per thread"
        bars.append(("SEMAPHORE, 3 permits, 12 threads, alternating", label, fig["rate"], COLORS[name]))
    for name, fig in sbs.get("readHeavy", {}).items():
        label = "@DistributedLock" if name == "zkLock" else "Raw Curator InterProcessReadWriteLock per thread"
        for role in ("reader", "writer"):
            if fig.get(role) is not None:
                bars.append(("READ-heavy, 8 readers + 1 writer, alternating", f"{label}, {role}s", fig[role],
                             COLORS[name]))
    return bars


def svg_chart(unc_rows, cont_rows, info, sbs, hot_bars=()):
    width, label_w, bar_w, row_h = 1000, 430, 420, 22
    parts = []
    y = 30

    def text(x, yy, s, size=12, anchor="start", weight="normal", fill="#222"):
        parts.append(f'<text x="{x:.1f}" y="{yy:.1f}" font-size="{size}" text-anchor="{anchor}" '
                     f'font-weight="{weight}" fill="{fill}">{escape(s)}</text>')

    if unc_rows:
        text(10, y, "Uncontended lock cycle, median (p99 in brackets), microseconds: shorter is better", 14,
             weight="bold")
        y += 14
    max_median = max((row["median"] for row in unc_rows), default=1)
    for row in unc_rows:
        y += row_h
        color = "#1f6fb2" if row["label"].startswith(("@", "LockTemplate")) else (
            "#e0873a" if row["label"].startswith("Spring") else "#7f7f7f")
        if row["name"].endswith("zooKeeperFloor"):
            color = "#3c3c3c"
        w = bar_w * row["median"] / max_median
        text(label_w - 8, y - 6, row["label"], 11, anchor="end")
        parts.append(f'<rect x="{label_w}" y="{y - row_h + 6}" width="{w:.1f}" height="{row_h - 8}" fill="{color}"/>')
        text(label_w + w + 6, y - 6, f"{row['median']:,.0f} ({row['p99']:,.0f})", 11)
    modes = sbs.get("modes", {})
    if modes:
        y += 40
        text(10, y, "Interleaved: median cycle / raw create+delete floor, every mode (target 1.25): shorter is better",
             14, weight="bold")
        y += 14
        top = y
        max_ratio = max([1.25] + [fig[k] for fig in modes.values() for k in ("annotated/floor.p50",
                                                                              "curator/floor.p50") if fig[k]])
        for mode, _, label, recipe, _, _ in MODES:
            fig = modes.get(mode)
            if not fig:
                continue
            for key, who, color in (("annotated/floor.p50", f"@DistributedLock {label}", "#1f6fb2"),
                                    ("curator/floor.p50", f"Raw Curator {recipe}", "#7f7f7f")):
                if fig[key] is None:
                    continue
                y += row_h
                w = bar_w * fig[key] / max_ratio
                text(label_w - 8, y - 6, who, 11, anchor="end")
                parts.append(f'<rect x="{label_w}" y="{y - row_h + 6}" width="{w:.1f}" height="{row_h - 8}" '
                             f'fill="{color}"/>')
                text(label_w + w + 6, y - 6, f"{fig[key]:.2f}", 11)
        x = label_w + bar_w * 1.25 / max_ratio
        parts.append(f'<line x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{y + 4:.1f}" stroke="#c0392b" '
                     'stroke-dasharray="4,3"/>')
    for title, bars in (("Contended, one key: acquisitions per second, all threads together: longer is better",
                         contended_bars(cont_rows, sbs)),
                        ("Hot keys, local hand-off (#31): acquisitions per second, alternating with Curator",
                         list(hot_bars))):
        if not bars:
            continue
        y += 40
        text(10, y, title, 14, weight="bold")
        y += 14
        max_rate = max(bar[2] for bar in bars) or 1
        setting = None
        for bar_setting, label, rate, color in bars:
            if bar_setting != setting:
                setting = bar_setting
                y += row_h
                text(10, y - 6, setting, 12, weight="bold")
            y += row_h
            w = bar_w * rate / max_rate
            text(label_w - 8, y - 6, label, 11, anchor="end")
            parts.append(f'<rect x="{label_w}" y="{y - row_h + 6}" width="{w:.1f}" height="{row_h - 8}" '
                         f'fill="{color}"/>')
            text(label_w + w + 6, y - 6, f"{rate:,.0f}", 11)
    if info:
        y += 34
        text(10, y, f"{info.get('started', '?')[:16].replace('T', ' ')} UTC, {info.get('cpu', '?')}, "
             f"{info.get('cores', '?')} cores; load average before {info.get('loadBefore', '?').split()[0]}, after "
             f"{info.get('loadAfter', '?').split()[0]}; ZooKeeper {info.get('zookeeper', '?').split('-')[0]}, "
             "forceSync on, separate JVM", 11, fill="#555")
    height = y + 20
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">'
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>')
    return head + "".join(parts) + "</svg>\n"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    directory = argv[1]
    trim(directory)
    results, info = load(directory)
    unc_rows, unc = uncontended_rows(results)
    cont_rows = contended_rows(results)
    many = many_keys_row(results)
    sbs = side_by_side(results)
    checks = check_targets(unc, cont_rows, sbs)
    goals = targets(unc, cont_rows, sbs)
    # imported here, as hot_keys imports this module for its helpers; no __pycache__ in the source tree
    sys.dont_write_bytecode = True
    import hot_keys
    hot = hot_keys.figures(results)
    hot_goals = hot_keys.targets(hot) if hot else []
    with open(os.path.join(directory, "results.md"), "w", encoding="utf-8") as f:
        f.write(markdown(unc_rows, cont_rows, many, checks, info, results, sbs, goals,
                         hot_keys.section(hot, hot_goals)))
    with open(os.path.join(directory, "chart.svg"), "w", encoding="utf-8") as f:
        f.write(svg_chart(unc_rows, cont_rows, info, sbs, hot_keys.bars(hot) if hot else []))
    print(f"Wrote {os.path.join(directory, 'results.md')} and {os.path.join(directory, 'chart.svg')}")
    if hot_goals:
        print("Hot-key targets (#31):")
        for measure, target, measured, verdict in hot_goals:
            print(f"  {verdict_text(verdict):>12}  {measure}: {measured} (target {target})")
    print("Targets:")
    for measure, target, measured, verdict in goals:
        print(f"  {verdict_text(verdict):>12}  {measure}: {measured} (target {target})")
    print("Earlier targets:")
    for measure, target, measured, verdict in checks:
        print(f"  {verdict_text(verdict):>12}  {measure}: {measured} (target {target})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
