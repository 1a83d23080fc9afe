#!/usr/bin/env python3
"""Helper of bench/tick_bench.sh: the parts that are easier in Python than in bash.

    tick_stats.py read FIFO                     timestamp each line of the ticker's stdout as it arrives
    tick_stats.py run NAME DIR REQUESTS         lateness of one 40-request run (SQL and stdout) -> DIR/run.json
    tick_stats.py strace DIR                    where the time of each delivery goes, from strace -ttt -T
    tick_stats.py fsync DIR COMMITS             this disk's fdatasync latency, SQLite-commit-sized appends
    tick_stats.py report OUT RESULTS META_JSON  writes TICK_RESULTS.md from the JSON files in OUT

Percentiles are nearest-rank (the smallest value with at least p% of the samples at or below it): with 40
samples p99 is the largest value, i.e. p99 and max coincide; pooled over 3 runs it is the 119th of 120.
"""
import glob
import json
import math
import os
import re
import sys
import time
from datetime import datetime


def pct(values, p):
    v = sorted(values)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)] if v else None


def summary(values):
    return {"n": len(values), "p50": pct(values, 50), "p90": pct(values, 90), "p99": pct(values, 99),
            "max": max(values) if values else None}


def read(fifo):
    # time.time_ns() is CLOCK_REALTIME, the clock the ticker compares fire_at with. os.read returns
    # as soon as the ticker's write(2) lands in the pipe; no buffering between the two.
    fd = os.open(fifo, os.O_RDONLY)
    pending = b""
    while chunk := os.read(fd, 65536):
        arrived = time.time_ns()
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            sys.stdout.write(f"{arrived}\t{line.decode()}\n")
        sys.stdout.flush()


def fire_ms(rfc3339):
    # The second field of a stdout line, e.g. 2026-11-22T00:19:53.554+09:00 (milliseconds are exact).
    dt = datetime.fromisoformat(rfc3339)
    return round(dt.timestamp() * 1000)


def run(name, d, requests):
    sql = [int(x) for x in open(f"{d}/sql_lateness.txt").read().split()]
    seen = {}
    for line in open(f"{d}/stdout.tsv"):
        arrived, identifier, fire_at, _title = line.rstrip("\n").split("\t", 3)
        seen[identifier] = int(arrived) / 1e6 - fire_ms(fire_at)
    by_id, claim_lag, claim_to_delivered = {}, [], []
    for line in open(f"{d}/sql_by_id.txt"):
        identifier, lateness, lag = (x.strip() for x in line.split("|"))
        by_id[identifier] = int(lateness)
        claim_lag.append(int(lag))
        claim_to_delivered.append(int(lateness) - int(lag))
    # The reader sees a line after the ticker wrote it; the ticker reads its clock after the write
    # returns, truncated to the millisecond. So stdout - SQL should lie in about (-1, +1) ms.
    diffs = [seen[i] - by_id[i] for i in by_id if i in seen]
    meta = json.load(open(f"{d}/meta.json"))
    result = {"name": name, "requests": requests, "delivered": len(sql), "missed": requests - len(sql),
              "sql": summary(sql), "stdout": summary(list(seen.values())),
              "claim_lag": summary(claim_lag), "claim_to_delivered": summary(claim_to_delivered),
              "stdout_minus_sql": {"min": min(diffs), "max": max(diffs)} if diffs else None,
              "sql_values": sql, "stdout_values": sorted(seen.values()), **meta}
    json.dump(result, open(f"{d}/run.json", "w"), indent=1)
    s, o = result["sql"], result["stdout"]
    print(f"{name}: delivered {len(sql)}/{requests}; SQL p50 {s['p50']} p90 {s['p90']} p99 {s['p99']} max {s['max']} ms; "
          f"stdout p50 {o['p50']:.2f} p99 {o['p99']:.2f} max {o['max']:.2f} ms", file=sys.stderr)


LINE = re.compile(r"^(\d+)\s+(\d+\.\d+) (\w+)\((.*)\) += (-?\d+|\?).*?<(\d+\.\d+)>$")


def strace(d):
    """Splits each delivery (fire_at -> the stdout write returning) into: the wake-up (timer due -> poll
    returns), the claim transaction's CPU work before its fdatasync, the fdatasync, and what follows
    (unlock, formatting, write). Needs strace -f -ttt -T with poll, fdatasync and write traced."""
    schedule = json.load(open(f"{d}/schedule.json"))  # identifier -> fire_at in ms
    events = []
    for line in open(f"{d}/strace.txt"):
        m = LINE.match(line.strip())
        if m:
            events.append((float(m[2]), m[3], m[4], float(m[6])))
    rows, fsyncs = [], []
    last_poll_end = last_fsync = None
    for start, call, args, dur in events:
        if call == "poll":
            last_poll_end = start + dur
            last_fsync = None
        elif call in ("fdatasync", "fsync"):
            fsyncs.append(dur * 1000)
            last_fsync = (start, dur)
        elif call == "write" and args.startswith("1, \""):
            identifier = args[4:].split("\\t", 1)[0]
            if identifier not in schedule or last_poll_end is None:
                continue
            fire = schedule[identifier] / 1000
            # No fdatasync since the wake-up (synchronous=NORMAL in WAL mode): the commit did not sync.
            fs_start, fs_dur = last_fsync or (start, 0.0)
            rows.append({
                "id": identifier,
                "wake": (last_poll_end - fire) * 1000,
                "before_fsync": (fs_start - last_poll_end) * 1000,
                "claim_fsync": fs_dur * 1000,
                "after_fsync": (start + dur - fs_start - fs_dur) * 1000,
                "total": (start + dur - fire) * 1000,
            })
    parts = ["wake", "before_fsync", "claim_fsync", "after_fsync", "total"]
    result = {"deliveries": len(rows), "parts": {p: summary([r[p] for r in rows]) for p in parts},
              "all_fsyncs": summary(fsyncs), "rows": rows}
    # Of the slowest deliveries, how much was the claim's fdatasync.
    slow = sorted(rows, key=lambda r: -r["total"])[:5]
    result["slowest"] = slow
    json.dump(result, open(f"{d}/breakdown.json", "w"), indent=1)
    p = result["parts"]
    print(f"strace: {len(rows)} deliveries; claim fdatasync p50 {f2(p['claim_fsync']['p50'])} "
          f"max {f2(p['claim_fsync']['max'])} ms; wake max {f2(p['wake']['max'])} ms", file=sys.stderr)


def fsync(d, commits):
    """What one SQLite claim commit asks of the disk, without SQLite: append five WAL frames (24-byte
    header + 4096-byte page, as in the ticker's strace) and fdatasync, COMMITS times."""
    path = f"{d}/fsync-probe.bin"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    frame = b"\0" * 24 + os.urandom(4096)
    offset, durations = 0, []
    for _ in range(commits):
        for _ in range(5):
            os.pwrite(fd, frame, offset)
            offset += len(frame)
        t = time.perf_counter_ns()
        os.fdatasync(fd)
        durations.append((time.perf_counter_ns() - t) / 1e6)
        time.sleep(0.02)  # not back to back: the ticker's commits are 150 ms apart, the disk idle between
    os.close(fd)
    os.unlink(path)
    result = summary(durations)
    json.dump(result, open(f"{d}/fsync.json", "w"), indent=1)
    print(f"fdatasync alone: p50 {result['p50']:.2f} p99 {result['p99']:.2f} max {result['max']:.2f} ms", file=sys.stderr)


def f2(x):
    return "-" if x is None else (f"{x:.2f}" if isinstance(x, float) else str(x))


def verdict(ok):
    return "PASS" if ok else "FAIL"


def report(out, results, meta_path):
    meta = json.load(open(meta_path))
    runs = [json.load(open(f)) for f in sorted(glob.glob(f"{out}/run*/run.json"))]
    idle = json.load(open(f"{out}/idle/idle.json"))
    diag = f"{out}/diag/breakdown.json"
    diag = json.load(open(diag)) if os.path.exists(diag) else None
    probe = f"{out}/fsync.json"
    probe = json.load(open(probe)) if os.path.exists(probe) else None
    target_ms, target_kib = meta["target_p99_ms"], meta["target_rss_kib"]

    pooled_sql = [v for r in runs for v in r["sql_values"]]
    pooled_out = [v for r in runs for v in r["stdout_values"]]
    ps, po = summary(pooled_sql), summary(pooled_out)
    lateness_ok = all(r["sql"]["p99"] is not None and r["sql"]["p99"] <= target_ms and r["missed"] == 0 for r in runs)
    idle_wakes = idle["voluntary"] + idle["nonvoluntary"]
    rss_ok = idle["vmrss_kib"] <= target_kib and idle["vmhwm_kib"] <= target_kib
    terms = [(r["name"], r["sigterm_ms"], r["sigterm_rc"]) for r in runs] + [("idle", idle["sigterm_ms"], idle["sigterm_rc"])]
    term_ok = all(ms <= 1000 and rc == 0 for _, ms, rc in terms)

    L = []
    L.append("# `planner tick`: lateness, idle wake-ups, memory, SIGTERM")
    L.append("")
    L.append("Generated by `bench/tick_bench.sh`; the part above the marker line is rewritten on every run.")
    L.append("")
    L.append(f"- Command: `{meta['command']}`")
    L.append(f"- Date: {meta['date']}; machine: nproc {meta['nproc']}, kernel {meta['kernel']}, {meta['cpu']}; "
             f"load before / after: {meta['load_before']} / {meta['load_after']}")
    L.append(f"- Source: {meta['source']}; {meta['version']}; SQLite {meta['sqlite']}; {meta['swift']}")
    L.append(f"- Binary: `{meta['planner']}` (release, `--static-swift-stdlib`, as the README installs it); TZ={meta['tz']}; "
             f"database on {meta['fs']}")
    L.append(f"- Ticker: `planner tick --sink stdout --db DB > FIFO` (real clock), DB an empty database alone in its folder "
             f"(the ticker watches that folder with inotify), FIFO read by `bench/tick_stats.py read`, which stamps each "
             f"line with CLOCK_REALTIME as it arrives.")
    L.append(f"- Requests: {meta['requests']} × `planner add --db DB --at <now+{meta['lead_ms']} ms + i×{meta['spacing_ms']} ms, "
             f"e.g. 2026-11-21T15:19:53.554Z> --id bench_<i> --title 'request <i>'`, all added before the first is due; "
             f"then `SELECT lateness_ms FROM delivered_notifications` once none is pending. A fresh database and ticker for each run.")
    L.append("- Percentiles are nearest-rank: with 40 samples p99 is the largest value (p99 = max); pooled, the 119th of 120. "
             "SQL lateness is whole milliseconds (delivered_at_ms is truncated); stdout lateness is to the microsecond.")
    L.append("")
    L.append(f"## 1. Lateness (target: p99 <= {target_ms} ms, none missed)")
    L.append("")
    L.append("| run | delivered / missed | adds done before first due | SQL p50 | SQL p90 | SQL p99 | SQL max | stdout p50 | stdout p90 | stdout p99 | stdout max | stdout − SQL (per request) | verdict |")
    L.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|")
    for r in runs:
        s, o, d = r["sql"], r["stdout"], r["stdout_minus_sql"]
        ok = s["p99"] is not None and s["p99"] <= target_ms and r["missed"] == 0
        L.append(f"| {r['name']} | {r['delivered']} / {r['missed']} | {r['margin_ms']} ms | {s['p50']} | {s['p90']} | {s['p99']} | {s['max']} "
                 f"| {f2(o['p50'])} | {f2(o['p90'])} | {f2(o['p99'])} | {f2(o['max'])} "
                 f"| {f2(d['min']) if d else '-'} … {f2(d['max']) if d else '-'} | {verdict(ok)} |")
    L.append(f"| pooled | {len(pooled_sql)} / {sum(r['missed'] for r in runs)} | | {ps['p50']} | {ps['p90']} | {ps['p99']} | {ps['max']} "
             f"| {f2(po['p50'])} | {f2(po['p90'])} | {f2(po['p99'])} | {f2(po['max'])} | | {verdict(lateness_ok)} |")
    L.append("")
    L.append("All times in ms. Each run's SQL values, sorted: " + "; ".join(
        f"{r['name']}: " + " ".join(map(str, sorted(r['sql_values']))) for r in runs))
    L.append("")
    L.append("The same runs split with the ticker's own timestamps (whole ms, no strace): `claimed_at_ms − fire_at_ms` is when it read "
             "the clock to start the claim (the wake-up), `delivered_at_ms − claimed_at_ms` the claim transaction with its commit, plus the "
             "write to stdout.")
    L.append("")
    L.append("| run | wake-up p50 / p99 / max | claim commit + write p50 / p90 / p99 / max |")
    L.append("|---|--:|--:|")
    for r in runs:
        a, b = r["claim_lag"], r["claim_to_delivered"]
        L.append(f"| {r['name']} | {a['p50']} / {a['p99']} / {a['max']} | {b['p50']} / {b['p90']} / {b['p99']} / {b['max']} |")
    L.append("")
    if diag:
        p = diag["parts"]
        L.append("### Where the time goes (one more run of the same 40 requests, the ticker started under strace; not counted above)")
        L.append("")
        L.append(f"`strace -f -ttt -T --seccomp-bpf -e trace=poll,fdatasync,fsync,write -o strace.txt planner tick --sink stdout --db DB`: "
                 f"each delivery from its fire_at to the return of its stdout write, {diag['deliveries']} deliveries. "
                 "strace slows every traced call a little; the split, not the total, is the point.")
        L.append("")
        L.append("| part | p50 | p90 | p99 | max |")
        L.append("|---|--:|--:|--:|--:|")
        names = {"wake": "wake-up: fire_at → poll returns (timerfd)",
                 "before_fsync": "claim transaction before its fdatasync (lock, SELECT, UPDATE, WAL pwrite)",
                 "claim_fsync": "claim commit's fdatasync (synchronous=FULL)",
                 "after_fsync": "after it: unlock, format, write(1) to the pipe",
                 "total": "total (≈ lateness as stdout sees it)"}
        for k, label in names.items():
            L.append(f"| {label} | {f2(p[k]['p50'])} | {f2(p[k]['p90'])} | {f2(p[k]['p99'])} | {f2(p[k]['max'])} |")
        a = diag["all_fsyncs"]
        L.append(f"| every fdatasync of the ticker in that run ({a['n']}: claims and outcomes) | {f2(a['p50'])} | {f2(a['p90'])} | {f2(a['p99'])} | {f2(a['max'])} |")
        if probe:
            L.append(f"| fdatasync alone, no SQLite: 5 × 4,120-byte appends then fdatasync, {probe['n']} times 20 ms apart (`tick_stats.py fsync`) "
                     f"| {f2(probe['p50'])} | {f2(probe['p90'])} | {f2(probe['p99'])} | {f2(probe['max'])} |")
        L.append("")
        L.append("Slowest five deliveries in that run (ms): " + "; ".join(
            f"{r['id']} total {r['total']:.2f} = wake {r['wake']:.2f} + before {r['before_fsync']:.2f} + fdatasync {r['claim_fsync']:.2f} + after {r['after_fsync']:.2f}"
            for r in diag["slowest"]))
        L.append("")
    L.append(f"## 2–4. Idle ticker (next request `planner add --in 1h`), memory, SIGTERM")
    L.append("")
    L.append("| measure | value | target | verdict |")
    L.append("|---|--:|--:|:-:|")
    L.append(f"| context switches in {idle['seconds']} s idle (voluntary + nonvoluntary, summed over the {idle['threads']} thread(s) in /proc/PID/task/*/status) "
             f"| {idle['voluntary']} + {idle['nonvoluntary']} = {idle_wakes} | 0 | {verdict(idle_wakes == 0)} |")
    if idle.get("strace_seconds"):
        L.append(f"| system calls in a further {idle['strace_seconds']} s idle (`strace -f -c -p PID`) | {idle['strace_calls']} | 0 | {verdict(idle['strace_calls'] == 0)} |")
    L.append(f"| VmRSS of the idle ticker | {idle['vmrss_kib']:,} KiB ({idle['vmrss_kib'] / 1024:.1f} MiB) | <= {target_kib // 1024} MiB | {verdict(idle['vmrss_kib'] <= target_kib)} |")
    L.append(f"| VmHWM of the idle ticker (peak since start) | {idle['vmhwm_kib']:,} KiB ({idle['vmhwm_kib'] / 1024:.1f} MiB) | <= {target_kib // 1024} MiB | {verdict(idle['vmhwm_kib'] <= target_kib)} |")
    hwm_runs = ", ".join(f"{r['name']} {r['vmhwm_kib']:,}" for r in runs)
    L.append(f"| VmHWM after 40 deliveries (KiB) | {hwm_runs} | <= {target_kib // 1024} MiB | {verdict(all(r['vmhwm_kib'] <= target_kib for r in runs))} |")
    for name, ms, rc in terms:
        L.append(f"| SIGTERM → exit, {'idle ticker (an hour to wait)' if name == 'idle' else 'after ' + name}: time, exit status "
                 f"| {ms:.1f} ms, {rc} | <= 1000 ms, 0 | {verdict(ms <= 1000 and rc == 0)} |")
    L.append("")
    L.append("SIGTERM time: from just before `kill -TERM PID` to bash's `wait PID` returning (includes bash's own reaping).")
    L.append("")
    overall = lateness_ok and idle_wakes == 0 and rss_ok and term_ok
    L.append(f"Overall: {verdict(overall)} (lateness p99 <= {target_ms} ms with none missed in every run, no wake-up while idle, "
             f"VmRSS and VmHWM <= {target_kib // 1024} MiB, SIGTERM exits 0 within 1 s)")

    marker = "<!-- Everything below this line is written by hand; tick_bench.sh keeps it. -->"
    kept = ""
    if os.path.exists(results):
        text = open(results).read()
        if marker in text:
            kept = text[text.index(marker) + len(marker):]
    with open(results, "w") as f:
        f.write("\n".join(L) + "\n\n" + marker + (kept if kept else "\n"))
    print("\n".join(L))
    return 0 if overall else 2


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "read":
        read(*args)
    elif cmd == "run":
        run(args[0], args[1], int(args[2]))
    elif cmd == "strace":
        strace(*args)
    elif cmd == "fsync":
        fsync(args[0], int(args[1]))
    elif cmd == "report":
        sys.exit(report(*args))
    else:
        sys.exit(f"unknown command {cmd}")
