"""The hot-key rows of issue #31 (local hand-off) for bench_report.py: their figures, targets, markdown and bars.

Every contended hot-key row alternates zk-lock with local hand-off and raw Curator (one lock per thread) in
iterations A B B A; the figures of each contestant are sums over its own iterations (AlternatingTurn, HotKeyTurn).
"""

import bench_report as report

ONE_JVM = [("8 threads, 1 JVM", "HotKeyBenchmarks.hotKeyAndCuratorPerThread8", "hotKey8"),
           ("32 threads, 1 JVM", "HotKeyBenchmarks.hotKeyAndCuratorPerThread32", "hotKey32")]
TWO_JVM = "HotKeyTwoJvmBenchmarks.hotKeyAndCuratorPerThread"
READ_HEAVY = "HotKeyReadHeavyBenchmarks.hotKeyReadHeavy"
WAITERS = "HotKeyWaitersBenchmark.thousandWaiters"
PAIRED = "HotKeyPairedBenchmarks.floorOffOn"
DEFAULT_LIMITS = "16/50"
CONTESTANTS = ("zkLock", "curatorPerThread")
WRITES = ("create", "delete", "setData")


def contestant(entry, prefix, name, roles=()):
    """One contestant's sums: rate over every JVM, ZooKeeper requests, hand-off, tenures and runs."""
    value = lambda metric: report.secondary(entry, f"{prefix}.{name}.{metric}")
    seconds = value("seconds")
    every_jvm = value("everyJvm.acquisitions") or value("acquisitions")
    if not seconds or not every_jvm:
        return None
    types = {t: value("zk." + t) for t in report.OP_TYPES}
    requests = sum(v for v in types.values() if v is not None)
    passes, tenures, runs, switches = value("passes"), value("tenures"), value("runs"), value("switches")
    iterations = value("handoff.iterations")
    fig = {
        "rate": every_jvm / seconds, "requests": requests / every_jvm,
        "writes": sum(types[t] or 0 for t in WRITES) / every_jvm,
        "types": {t: v / every_jvm if v is not None else None for t, v in types.items()},
        "handoff": value("handoff.p50sum") / iterations if iterations else None,
        "passesPerTenure": passes / tenures if passes is not None and tenures else None,
        "meanRun": every_jvm / runs if runs else None,
        "longestRun": value("longestRun"), "longestRunMs": value("longestRunMs"),
        "switchMs": value("switchMs") / switches if switches else None,
    }
    for role in roles:
        count = value(f"{role}.acquisitions")
        fig[role] = count / seconds if count is not None else None
    return fig


def pair(entry, prefix, roles=()):
    if entry is None:
        return None
    figs = {name: contestant(entry, prefix, name, roles) for name in CONTESTANTS}
    if not all(figs.values()):
        return None
    figs["ratio"] = figs["zkLock"]["rate"] / figs["curatorPerThread"]["rate"]
    return figs


def figures(results):
    """Every hot-key figure of a run, or an empty dict when no hot-key row ran."""
    hot = {"oneJvm": {}, "sweep": {}}
    for setting, name, prefix in ONE_JVM:
        figs = pair(results.get(name), prefix)
        if figs:
            hot["oneJvm"][setting] = figs
    for key, entry in results.items():
        if key.startswith(TWO_JVM + ":"):
            figs = pair(entry, "hotKey2jvm")
            if figs:
                hot["sweep"][entry["params"]["limits"]] = figs
    hot["readHeavy"] = pair(results.get(READ_HEAVY), "hotKeyReadHeavy", ("reader", "writer"))
    waiters = results.get(WAITERS)
    if waiters is not None:
        hot["waiters"] = {name: {m: report.secondary(waiters, f"waiters.{name}.{m}") for m in
                                 ("nodes", "ownNodes", "watches", "serverWatches", "requests", "drainMs")}
                          for name in CONTESTANTS}
    paired = results.get(PAIRED)
    if paired is not None:
        value = lambda metric: report.secondary(paired, "hotPaired." + metric)
        hot["paired"] = {kind: {"p50": value(kind + ".p50"), "ops": value(kind + ".zk.ops"),
                                "types": {t: value(f"{kind}.zk.{t}") for t in report.OP_TYPES},
                                "vsFloor": value(kind + "/floor.p50")} for kind in ("floor", "off", "on")}
        hot["paired"]["on/off"] = value("on/off.p50")
    if not hot["oneJvm"] and not hot["sweep"] and not any(hot.get(k) for k in ("readHeavy", "waiters", "paired")):
        return {}
    return hot


def rates(figs):
    return (f"{report.fmt(figs['zkLock']['rate'])} vs {report.fmt(figs['curatorPerThread']['rate'])}/s "
            "alternating")


def ratio_row(measure, figs, target):
    if not figs:
        return (measure, f"≥ {target}×", "not run", "not run")
    return (measure, f"≥ {target}×", f"{figs['ratio']:,.1f}× ({rates(figs)})", figs["ratio"] >= target)


def targets(hot):
    """The targets of issue #31: (measure, target, measured, verdict) rows."""
    rows = []
    for setting, _, _ in ONE_JVM:
        rows.append(ratio_row(f"one key, {setting}: acquisitions/s vs Curator", hot["oneJvm"].get(setting), 30))
    two = hot["sweep"].get(DEFAULT_LIMITS)
    rows.append(ratio_row(f"one key, 2 JVMs × 4 threads (max-passes 16, max-time 50 ms): acquisitions/s vs Curator",
                          two, 3))
    rows.append(ratio_row("8 readers + 1 writer: acquisitions/s vs Curator's read/write lock", hot.get("readHeavy"), 3))
    eight = hot["oneJvm"].get("8 threads, 1 JVM")
    measure = "ZooKeeper writes (create + delete + setData) per grant, 8 threads on one key"
    if eight:
        ours = eight["zkLock"]
        rows.append((measure, "≤ 0.25", f"{ours['writes']:.4f} ({report.fmt(ours['passesPerTenure'])} passes per "
                     f"tenure; Curator {eight['curatorPerThread']['writes']:.2f})", ours["writes"] <= 0.25))
    else:
        rows.append((measure, "≤ 0.25", "not run", "not run"))
    waiters = hot.get("waiters")
    measure = "1,000 threads of one JVM waiting on one key: nodes and watches in ZooKeeper"
    if waiters:
        ours, theirs = waiters["zkLock"], waiters["curatorPerThread"]
        rows.append((measure, "1 node, 1 watch",
                     f"{report.fmt(ours['ownNodes'])} node, {report.fmt(ours['watches'])} watch, "
                     f"{report.fmt(ours['requests'])} requests to queue them (Curator {report.fmt(theirs['ownNodes'])}"
                     f", {report.fmt(theirs['watches'])}, {report.fmt(theirs['requests'])})",
                     ours["ownNodes"] == 1 and ours["watches"] == 1))
    else:
        rows.append((measure, "1 node, 1 watch", "not run", "not run"))
    paired = hot.get("paired")
    for kind, label in (("on", "on"), ("off", "off")):
        measure = f"uncontended cycle, localHandoff {label}: operations, median / floor"
        if paired and paired[kind]["vsFloor"] is not None:
            fig = paired[kind]
            rows.append((measure, "3, ≤ 1.25×", f"{fig['ops']:.2f} ({report.types_text(fig['types'])}), "
                         f"{fig['vsFloor']:.2f}× ({report.fmt(fig['p50'])} vs {report.fmt(paired['floor']['p50'])} µs)",
                         fig["ops"] <= 3.05 and fig["vsFloor"] <= 1.25))
        else:
            rows.append((measure, "3, ≤ 1.25×", "not run", "not run"))
    return rows


def section(hot, goals):
    """The markdown of the hot-key rows: targets, contended figures, the bounds' sweep, waiters, uncontended."""
    if not hot:
        return []
    out = ["## Hot keys: local hand-off (#31)", "", "| measure | target | measured | result |",
           "| --- | --- | --- | --- |"]
    out += [f"| {m} | {t} | {v} | {report.verdict_text(ok)} |" for m, t, v, ok in goals]
    out += ["", "zk-lock locks through `LockTemplate` with `LockRequest...localHandoff(true)`; Curator with one "
            "`InterProcessMutex` (`InterProcessReadWriteLock` for READ-heavy) per thread. Each contended row "
            "alternates the two in iterations A B B A (both JVMs switch together), so that load from elsewhere hits "
            "both alike: its ratio is of figures taken under the same conditions.", ""]
    out += ["| run | contestant | acquisitions/s | ratio | hand-off median µs | ZooKeeper requests/grant | "
            "writes/grant | passes per tenure |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    runs = list(hot["oneJvm"].items())
    if DEFAULT_LIMITS in hot["sweep"]:
        runs.append(("2 JVMs × 4 threads", hot["sweep"][DEFAULT_LIMITS]))
    if hot.get("readHeavy"):
        runs.append(("8 readers + 1 writer", hot["readHeavy"]))
    for setting, figs in runs:
        for name in CONTESTANTS:
            fig = figs[name]
            label = "zk-lock, local hand-off" if name == "zkLock" else "Curator, one lock per thread"
            ratio = f"{figs['ratio']:,.1f}×" if name == "zkLock" else ""
            passes = report.fmt(fig["passesPerTenure"], 1) if name == "zkLock" else ""
            out.append(f"| {setting} | {label} | {report.fmt(fig['rate'])} | {ratio} | {report.fmt(fig['handoff'])} | "
                       f"{fig['requests']:.3f} | {fig['writes']:.4f} | {passes} |")
    heavy = hot.get("readHeavy")
    if heavy:
        out += ["", f"READ-heavy by role: zk-lock {report.fmt(heavy['zkLock']['reader'])} reads and "
                f"{report.fmt(heavy['zkLock']['writer'])} writes/s, Curator "
                f"{report.fmt(heavy['curatorPerThread']['reader'])} and "
                f"{report.fmt(heavy['curatorPerThread']['writer'])}."]
    out += ["", "Requests and writes per grant: the clients' requests by type (both JVMs of a two-JVM run) over every "
            "grant; writes are create + delete + setData. Passes per tenure: grants passed locally over tenures "
            "granted through ZooKeeper, in the measured JVM.", ""]
    out += sweep_section(hot["sweep"]) + waiters_section(hot.get("waiters")) + paired_section(hot.get("paired"))
    return out


def sweep_section(sweep):
    if not sweep:
        return []
    out = ["### Tenure bounds, 2 JVMs × 4 threads", "",
           "| max-passes / max-time | zk-lock acquisitions/s | Curator (same fork) | ratio | passes per tenure | "
           "mean run (grants) | longest run (grants) | longest run (ms) | hand-off between JVMs, mean ms (Curator) | "
           "writes/grant |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for limits, figs in sweep.items():
        fig = figs["zkLock"]
        passes, time = limits.split("/")
        label = f"{'unbounded' if passes == 'max' else passes} / {time} ms"
        out.append(f"| {label} | {report.fmt(fig['rate'])} | {report.fmt(figs['curatorPerThread']['rate'])} | "
                   f"{figs['ratio']:,.1f}× | {report.fmt(fig['passesPerTenure'], 1)} | {report.fmt(fig['meanRun'], 1)} | "
                   f"{report.fmt(fig['longestRun'])} | {report.fmt(fig['longestRunMs'], 1)} | "
                   f"{report.fmt(fig['switchMs'], 2)} ({report.fmt(figs['curatorPerThread']['switchMs'], 2)}) | "
                   f"{fig['writes']:.4f} |")
    curator = [figs["curatorPerThread"] for figs in sweep.values()]
    out += ["", "A run is a stretch of consecutive grants in one JVM (counted on the shared board by each holder); "
            "the longest is the largest of any measured iteration, in grants and from its first grant to its last: "
            "about how long the other JVM's waiters waited. A hand-off between JVMs runs from the last release of a "
            "run to the first grant of the next. "
            f"Curator's runs in the same forks: mean {report.fmt(sum(c['meanRun'] or 0 for c in curator) / len(curator), 1)}"
            f" grants, longest {report.fmt(max(c['longestRun'] or 0 for c in curator))}.", ""]
    return out


def waiters_section(waiters):
    if not waiters:
        return []
    out = ["### 1,000 threads of one JVM waiting on one key", "",
           "| contestant | nodes under the key | the waiters' nodes | the waiters' watches | the server's watches | "
           "requests to queue the waiters | time to grant them all, ms |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name in CONTESTANTS:
        fig = waiters[name]
        label = "zk-lock, local hand-off" if name == "zkLock" else "Curator, one InterProcessMutex per thread"
        out.append(f"| {label} | {report.fmt(fig['nodes'])} | {report.fmt(fig['ownNodes'])} | "
                   f"{report.fmt(fig['watches'])} | {report.fmt(fig['serverWatches'])} | {report.fmt(fig['requests'])} | "
                   f"{report.fmt(fig['drainMs'])} |")
    out += ["", "A holder on another ZooKeeper session holds the key while the waiters queue; the counts are taken once "
            "no request has been sent for 500 ms. Nodes: children of the key's node, the holder's included; the "
            "waiters' watches: `wchc` for their session on the key's path; the server's: `wchs`, the holder's "
            "and the client's other watches included.", ""]
    return out


def paired_section(paired):
    if not paired:
        return []
    out = ["### Uncontended, interleaved", "", "| cycle | median µs | / floor | ZooKeeper operations | by type: "
           + report.OP_TYPES_HEADER + " |", "| --- | ---: | ---: | ---: | ---: |"]
    for kind, label in (("floor", "raw create + delete"), ("off", "LockTemplate, localHandoff off"),
                        ("on", "LockTemplate, localHandoff on")):
        fig = paired[kind]
        ratio = f"{fig['vsFloor']:.2f}" if fig["vsFloor"] is not None else ""
        out.append(f"| {label} | {report.fmt(fig['p50'])} | {ratio} | {report.fmt(fig['ops'], 2)} | "
                   f"{report.types_text(fig['types'])} |")
    out += ["", f"On / off, median: {report.fmt(paired['on/off'], 3)}. Each operation runs one cycle of each kind "
            "in rotating order; ratios are the mean of each iteration's ratio of medians.", ""]
    return out


def bars(hot):
    """(setting, label, rate, color) of the hot-key bars."""
    out = []
    runs = [(f"Hot key, {setting}", figs) for setting, figs in hot.get("oneJvm", {}).items()]
    runs += [(f"Hot key, 2 JVMs × 4 threads, {limits}", figs) for limits, figs in hot.get("sweep", {}).items()]
    if hot.get("readHeavy"):
        runs.append(("Hot key, 8 readers + 1 writer", hot["readHeavy"]))
    for setting, figs in runs:
        out.append((setting, f"zk-lock, local hand-off ({figs['ratio']:,.1f}× Curator)", figs["zkLock"]["rate"],
                    report.COLORS["zkLock"]))
        out.append((setting, "Curator, one lock per thread", figs["curatorPerThread"]["rate"],
                    report.COLORS["curatorPerThread"]))
    return out
