#!/usr/bin/env bash
# `planner open` at Monday 2026-11-23 12:00 Asia/Seoul with 64 pending, against bench/open_c.c doing
# the same SQLite work, side by side in one run, on three histories (fresh, a year, ten years); and against
# bench/open_min_c.c, a second floor: the same job on a two-table schema with nothing else. Then the same
# runs with another connection attached, as the installed ticker keeps one (no checkpoint at close), and
# the flushes each program asks of the disk either way.
# Targets (issue 12): CPU (user+sys) <= 1.25x the C twin, peak RSS <= 2.2x, and no growth with history.
# With BASELINE (another planner binary, e.g. the release build of an older commit), that binary runs
# side by side too, on templates of its own making, and `open`'s CPU and peak RSS must stay within 1.05x of
# it (issue 20): the table "Against the baseline".
# Writes bench/RESULTS.md. Exit status: 0 all targets met, 1 error or the two programs disagree,
# 2 a target missed.
#
#   bench/open_bench.sh                              # builds into ./.build, as the README's install does
#   BUILD_DIR=.build-bench RUNS=200 ROUNDS=10 RSS_RUNS=20 KEEP_TEMPLATES=1 bench/open_bench.sh
#   BASELINE=/tmp/planner-base BASELINE_LABEL='release build of 6d65970' bench/open_bench.sh
set -euo pipefail
shopt -s inherit_errexit  # a failed run inside $(...) stops the script too
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
BUILD_DIR=${BUILD_DIR:-$ROOT/.build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
RUNS=${RUNS:-200} ROUNDS=${ROUNDS:-10} WARMUP=${WARMUP:-3} RSS_RUNS=${RSS_RUNS:-20}
NOW=2026-11-23T12:00
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
export TZ=Asia/Seoul
mkdir -p "$OUT"

command -v hyperfine >/dev/null || apt-get install -y hyperfine >/dev/null
[ -x /usr/bin/time ] || apt-get install -y time >/dev/null

# What the binary is built from, taken now: sources edited during the run do not change it.
SOURCE="$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources Package.swift migrations link || echo ' plus uncommitted changes in Sources/, Package.swift, migrations/ or link/')"
# The binary the README installs: release, Swift runtime linked in statically.
(cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$BUILD_DIR")
PLANNER=$BUILD_DIR/release/planner
# open_c checks the database against the schema migrations/ makes (its version, objects, fingerprint).
python3 "$ROOT/bench/planner_schema.py" "$ROOT/migrations" > "$OUT/planner_schema.h"
gcc -O2 -I "$OUT" -o "$OUT/open_c" "$ROOT/bench/open_c.c" -lsqlite3
gcc -O2 -o "$OUT/open_min_c" "$ROOT/bench/open_min_c.c" -lsqlite3
command -v strace >/dev/null || apt-get install -y strace >/dev/null
[ "${KEEP_TEMPLATES:-}" = 1 ] && [ -f "$OUT/decade.db" ] || python3 "$ROOT/bench/make_history.py" "$PLANNER" "$OUT"
BASELINE=${BASELINE:-}
if [ -n "$BASELINE" ]; then  # its own templates: an older binary refuses a newer schema
    [ "${KEEP_TEMPLATES:-}" = 1 ] && [ -f "$OUT/baseline/decade.db" ] || python3 "$ROOT/bench/make_history.py" "$BASELINE" "$OUT/baseline"
fi

WORK=$OUT/work.db
WORK_MIN=$OUT/work-min.db
WORK_BASE=$OUT/work-baseline.db
PROGRAMS=3; BASE_RUN=()
[ -n "$BASELINE" ] && PROGRAMS=4 && BASE_RUN=(-n baseline "$BASELINE open --db $WORK_BASE --now $NOW")
declare -A HISTORY_DAYS=([fresh]=0 [year]=365 [decade]=3650)
# Everything both programs can have written, in a stable order (rowids included).
# app_open without event_id and origin: a random id, and columns the baseline (before events) does not have.
dump() { sqlite3 "$1" "SELECT * FROM request ORDER BY id; SELECT id, opened_at_ms, local_date, local_time, zone, cancelled FROM app_open ORDER BY id; SELECT * FROM plan;"; }
summary() { sqlite3 "$1" "SELECT state, count(*) FROM request GROUP BY state;
                         SELECT identifier, fire_at_ms FROM request WHERE state = 'pending' ORDER BY fire_at_ms;"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# How a program's file was written decides the page cache's folios for it, and a fault maps a whole folio:
# one binary peaked at 6,288 KiB copied by cp and 5,332 KiB copied by dd bs=4k (kernel 6.18, ext4;
# bench/RESULTS.md). So each program is dropped from the page cache before each run and read back the same
# way, by its own faults, whichever program wrote it. Before every run, not once: the folios the first run's
# faults and read-ahead leave decide what later runs map, and a run before (another history) could move a
# binary's median by 800 KiB; from a cold cache the runs agree within 1 %, but for a rare outlier the median drops.
drop_cached() { sync -- "$1"; dd if="$1" iflag=nocache count=0 status=none; }
# Peak RSS in KiB of the program itself (no shell in between), median of RSS_RUNS runs on fresh copies.
peak_rss() {
    local template=$1; shift
    for _ in $(seq "$RSS_RUNS"); do
        drop_cached "$1"
        cp "$template" "$WORK"
        /usr/bin/time -f %M -o "$OUT/rss.txt" "$@"
        cat "$OUT/rss.txt"
    done | median
}
# Instructions executed, in total and inside libsqlite3 (the same SQL work must cost the same there),
# from one callgrind run: deterministic up to a few hundred instructions, unlike times.
instructions() {
    local out=$OUT/callgrind-$1.out
    cp "$2" "$WORK"
    valgrind --tool=callgrind --callgrind-out-file="$out" "${@:3}" 2>/dev/null
    python3 - "$out" <<'PY'
import re, sys
objects, total, sqlite, current, after_call = {}, 0, 0, "", False
for line in open(sys.argv[1]):
    if m := re.match(r"(c?ob)=\((\d+)\)(?: (.*))?", line):
        if m[3]: objects[m[2]] = m[3].strip()
        if m[1] == "ob": current = objects[m[2]]
    elif line.startswith("calls="):
        after_call = True  # the next cost line is the callee's inclusive cost: not this function's own
    elif line[:1].isdigit() or line[:1] in "+-*":
        if not after_call and len(line.split()) > 1:
            cost = int(line.split()[1])
            total += cost
            sqlite += cost if "libsqlite3" in current else 0
        after_call = False
print(total, sqlite)
PY
}

ROWS=(); BASE_ROWS=()
for t in fresh year decade; do
    template=$OUT/$t.db
    # Same resulting state, or the comparison is meaningless.
    cp "$template" "$OUT/check-planner.db"; "$PLANNER" open --db "$OUT/check-planner.db" --now "$NOW"
    cp "$template" "$OUT/check-c.db"; "$OUT/open_c" "$OUT/check-c.db" "$NOW"
    if ! cmp -s <(dump "$OUT/check-planner.db") <(dump "$OUT/check-c.db"); then
        echo "!!!!!!!! MISMATCH on $t: planner and open_c left different databases !!!!!!!!" >&2
        diff <(summary "$OUT/check-planner.db") <(summary "$OUT/check-c.db") >&2 || true
        exit 1
    fi
    echo "== $t: same resulting state ($(sqlite3 "$OUT/check-c.db" "SELECT group_concat(state || '=' || n, ' ') FROM (SELECT state, count(*) n FROM request GROUP BY state)"))"
    base_template=$OUT/baseline/$t.db
    if [ -n "$BASELINE" ]; then  # the same history, the same open: the same rows (nothing a user sees changed)
        cp "$base_template" "$OUT/check-baseline.db"; "$BASELINE" open --db "$OUT/check-baseline.db" --now "$NOW"
        cmp -s <(dump "$OUT/check-planner.db") <(dump "$OUT/check-baseline.db") ||
            { echo "!!!!!!!! MISMATCH on $t: planner and BASELINE left different rows !!!!!!!!" >&2; exit 1; }
    fi
    min_template=$OUT/$t-min.db
    rm -f "$min_template"*
    "$OUT/open_min_c" init "$min_template" "$NOW" "${HISTORY_DAYS[$t]}"
    cp "$min_template" "$OUT/check-min.db"; "$OUT/open_min_c" "$OUT/check-min.db" "$NOW"
    # The same job: 20 of Monday's slots cancelled, the same 64 pending after.
    [ "$(sqlite3 "$OUT/check-min.db" "SELECT count(*) FROM slot WHERE state = 2")" = 20 ] &&
    cmp -s <(sqlite3 "$OUT/check-min.db" "SELECT id FROM slot WHERE state = 0 ORDER BY fire_at") \
           <(sqlite3 "$OUT/check-c.db" "SELECT identifier FROM request WHERE state = 'pending' ORDER BY fire_at_ms") ||
        { echo "!!!!!!!! open_min_c does not do the same job on $t !!!!!!!!" >&2; exit 1; }

    # Every run must start from the template, so that each cancels the 20 slots left on Monday and
    # adds 20. Copying a 15 MB template just before each run would flush the CPU caches and leave
    # 15 MB of dirty pages for the run's fsync to write: the decade runs would look slower for reasons
    # that are not the program's. So the copies are made and synced beforehand, and --prepare only
    # renames the next one into place. -N: no shell between hyperfine and the program.
    # ROUNDS rounds of RUNS/ROUNDS runs each, planner and C back to back, and the median of the
    # rounds: a burst of other work on this 2-core machine then spoils one round, not one side.
    rm -f "$OUT"/hyperfine-$t-*.json
    for r in $(seq "$ROUNDS"); do
        rm -rf "$OUT/pool"; mkdir "$OUT/pool"
        mkdir "$OUT/pool/min" "$OUT/pool/base"
        for i in $(seq -w $((PROGRAMS * (RUNS / ROUNDS + WARMUP) + 2))); do
            cp "$template" "$OUT/pool/$i.db"; cp "$min_template" "$OUT/pool/min/$i.db"
            [ -z "$BASELINE" ] || cp "$base_template" "$OUT/pool/base/$i.db"
        done
        sync
        # Each run takes the next copy of both templates (a run of either program uses one).
        next="sh -c 'set -- $OUT/pool/*.db; mv \$1 $WORK; set -- $OUT/pool/min/*.db; mv \$1 $WORK_MIN; set -- $OUT/pool/base/*.db; [ ! -e \$1 ] || mv \$1 $WORK_BASE'"
        runs=(-n planner "$PLANNER open --db $WORK --now $NOW" -n c "$OUT/open_c $WORK $NOW"
              -n min "$OUT/open_min_c $WORK_MIN $NOW" "${BASE_RUN[@]}")
        # Every other round in the reverse order: hyperfine runs one program's runs after the other's,
        # and on a shared machine the first to run after the copies can fare differently.
        if ((r % 2 == 0)); then
            reversed=(); for ((k = ${#runs[@]} - 3; k >= 0; k -= 3)); do reversed+=("${runs[@]:k:3}"); done
            runs=("${reversed[@]}")
        fi
        hyperfine -N --runs $((RUNS / ROUNDS)) --warmup "$WARMUP" --prepare "$next" "${runs[@]}" \
            --export-json "$OUT/hyperfine-$t-$r.json" >&2
    done
    rm -rf "$OUT/pool"
    read -r cpu_p cpu_c cpu_m wall_p wall_c cpu_b < <(python3 - "$OUT"/hyperfine-$t-*.json <<'PY'
import json, statistics, sys
rounds = [{x["command"]: x for x in json.load(open(f))["results"]} for f in sys.argv[1:]]
names = [n for n in ("planner", "c", "min", "baseline") if n in rounds[0]]
cpu = [statistics.median((r[n]["user"] + r[n]["system"]) * 1000 for r in rounds) for n in names]
wall = [statistics.median(r[n]["mean"] * 1000 for r in rounds) for n in ("planner", "c")]
print(*("%.3f" % x for x in cpu[:3] + wall + cpu[3:]), "-" if len(cpu) < 4 else "")
PY
)
    rss_p=$(peak_rss "$template" "$PLANNER" open --db "$WORK" --now "$NOW")
    rss_c=$(peak_rss "$template" "$OUT/open_c" "$WORK" "$NOW")
    rss_m=$(WORK=$WORK_MIN peak_rss "$min_template" "$OUT/open_min_c" "$WORK_MIN" "$NOW")
    ir_p="- -"; ir_c="- -"
    if command -v valgrind >/dev/null; then
        ir_p=$(instructions "$t-planner" "$template" "$PLANNER" open --db "$WORK" --now "$NOW")
        ir_c=$(instructions "$t-c" "$template" "$OUT/open_c" "$WORK" "$NOW")
    fi
    ir_m="- -"
    if command -v valgrind >/dev/null; then ir_m=$(WORK=$WORK_MIN instructions "$t-min" "$min_template" "$OUT/open_min_c" "$WORK_MIN" "$NOW"); fi
    ROWS+=("$t $(sqlite3 "$template" 'SELECT count(*) FROM request') $cpu_p $cpu_c $wall_p $wall_c $rss_p $rss_c $ir_p $ir_c $cpu_m $rss_m ${ir_m% *}")
    if [ -n "$BASELINE" ]; then
        rss_b=$(WORK=$WORK_BASE peak_rss "$base_template" "$BASELINE" open --db "$WORK_BASE" --now "$NOW")
        ir_b="- -"
        if command -v valgrind >/dev/null; then ir_b=$(WORK=$WORK_BASE instructions "$t-baseline" "$base_template" "$BASELINE" open --db "$WORK_BASE" --now "$NOW"); fi
        BASE_ROWS+=("$t $cpu_p $cpu_b $rss_p $rss_b ${ir_p% *} ${ir_b% *}")
    fi
done

# With a connection attached (the installed setup: the ticker keeps one open), on the smallest and the
# largest history: CPU and wall time, side by side as above.
HOLD=$ROOT/bench/hold_connection.py
unhold() { if [ -s "$OUT/held" ]; then kill "$(cat "$OUT/held")" 2>/dev/null || true; fi; rm -f "$OUT/held"; }
hold() {  # a fresh holder on the current WORK and WORK_MIN
    cat > "$OUT/next-attached.sh" <<SH
[ -s "$OUT/held" ] && kill "\$(cat "$OUT/held")" 2>/dev/null; rm -f "$OUT/held"
set -- $OUT/pool/*.db; mv "\$1" "$WORK"; set -- $OUT/pool/min/*.db; mv "\$1" "$WORK_MIN"
setsid python3 "$HOLD" "$OUT/held" "$WORK" "$WORK_MIN" </dev/null >/dev/null 2>&1 &
while [ ! -e "$OUT/held" ]; do sleep 0.005; done
SH
}
hold
ATTACHED=()
for t in fresh decade; do
    rm -f "$OUT"/hyperfine-attached-$t-*.json
    for r in $(seq "$ROUNDS"); do
        rm -rf "$OUT/pool"; mkdir -p "$OUT/pool/min"
        for i in $(seq -w $((3 * (RUNS / ROUNDS + WARMUP) + 2))); do
            cp "$OUT/$t.db" "$OUT/pool/$i.db"; cp "$OUT/$t-min.db" "$OUT/pool/min/$i.db"
        done
        sync
        hyperfine -N --runs $((RUNS / ROUNDS)) --warmup "$WARMUP" --prepare "sh $OUT/next-attached.sh" \
            -n planner "$PLANNER open --db $WORK --now $NOW" -n c "$OUT/open_c $WORK $NOW" \
            -n min "$OUT/open_min_c $WORK_MIN $NOW" \
            --export-json "$OUT/hyperfine-attached-$t-$r.json" >&2
    done
    unhold
    rm -rf "$OUT/pool"
    ATTACHED+=("$t $(python3 - "$OUT"/hyperfine-attached-$t-*.json <<'PY'
import json, statistics, sys
rounds = [json.load(open(f))["results"] for f in sys.argv[1:]]
cpu = [statistics.median((r[i]["user"] + r[i]["system"]) * 1000 for r in rounds) for i in (0, 1, 2)]
wall = [statistics.median(r[i]["mean"] * 1000 for r in rounds) for i in (0, 1, 2)]
print(*("%.3f" % x for x in cpu + wall))
PY
)")
done

# Flushes asked of the disk (fsync + fdatasync) by one run of each, alone and attached, fresh template.
flushes() {
    strace -f -c -e trace=fsync,fdatasync -o "$OUT/strace.txt" "$@" >/dev/null
    awk '$NF == "fsync" || $NF == "fdatasync" { n += $4 } END { print n + 0 }' "$OUT/strace.txt"
}
FLUSH_ROWS=()
for mode in alone attached; do
    row=$mode
    for program in planner c min; do
        cp "$OUT/fresh.db" "$WORK"; rm -f "$WORK"-wal "$WORK"-shm
        cp "$OUT/fresh-min.db" "$WORK_MIN"; rm -f "$WORK_MIN"-wal "$WORK_MIN"-shm
        if [ $mode = attached ]; then rm -f "$OUT/held"; setsid python3 "$HOLD" "$OUT/held" "$WORK" "$WORK_MIN" </dev/null >/dev/null 2>&1 &
            while [ ! -e "$OUT/held" ]; do sleep 0.005; done; fi
        case $program in
            planner) row+=" $(flushes "$PLANNER" open --db "$WORK" --now "$NOW")" ;;
            c) row+=" $(flushes "$OUT/open_c" "$WORK" "$NOW")" ;;
            min) row+=" $(flushes "$OUT/open_min_c" "$WORK_MIN" "$NOW")" ;;
        esac
        unhold
    done
    FLUSH_ROWS+=("$row")
done

# The three state reads and the cap trigger's count, as SQLite plans them on the largest history.
EQP=$(sqlite3 "$OUT/decade.db" <<'SQL'
EXPLAIN QUERY PLAN SELECT id, identifier, kind, fire_at_ms, local_date FROM request WHERE state = 'pending';
EXPLAIN QUERY PLAN SELECT identifier FROM request WHERE fire_at_ms > ? AND kind = 'slot' AND state IN (SELECT name FROM request_state WHERE ends_slot);
EXPLAIN QUERY PLAN SELECT DISTINCT local_date FROM app_open WHERE local_date >= ?;
EXPLAIN QUERY PLAN SELECT count(*) FROM request WHERE state = 'pending';
SQL
)

printf '%s\n' "${ROWS[@]}" > "$OUT/rows.txt"
printf '%s\n' "${BASE_ROWS[@]}" > "$OUT/baseline-rows.txt"
printf '%s\n' "${ATTACHED[@]}" > "$OUT/attached.txt"
printf '%s\n' "${FLUSH_ROWS[@]}" > "$OUT/flushes.txt"
TABLE=$(python3 - "$OUT/rows.txt" "$OUT/attached.txt" "$OUT/flushes.txt" "$OUT/baseline-rows.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
baseline = [l.split() for l in open(sys.argv[4]) if l.strip()]
attached = [l.split() for l in open(sys.argv[2])]
flushes = [l.split() for l in open(sys.argv[3])]
num = lambda x: None if x == "-" else float(x)
ratio = lambda a, b: num(a) / num(b) if num(a) and num(b) else None
fmt = lambda r: "-" if r is None else "%.2fx" % r
mega = lambda x: "-" if x == "-" else "%.2f M" % (float(x) / 1e6)
verdict = lambda ok: "PASS" if ok else "FAIL"
CPU, RSS = 1.25, 2.2
print(f"| history | request rows | CPU planner (ms) | CPU C twin (ms) | CPU ratio | <= {CPU}x "
      f"| peak RSS planner (KiB) | peak RSS C twin (KiB) | RSS ratio | <= {RSS}x "
      "| instructions planner (in SQLite) | instructions C twin (in SQLite) | instr. ratio | wall planner / C twin (ms) |")
print("|---|--:|--:|--:|--:|:-:|--:|--:|--:|:-:|--:|--:|--:|--:|")
ok = True
for t, n, cp, cc, wp, wc, rp, rc, ip, isp, ic, isc, cm, rm, im in rows:
    cr, rr = ratio(cp, cc), ratio(rp, rc)
    ok = ok and cr <= CPU and rr <= RSS
    print(f"| {t} | {int(n):,} | {cp} | {cc} | {fmt(cr)} | {verdict(cr <= CPU)} | {rp} | {rc} | {fmt(rr)} "
          f"| {verdict(rr <= RSS)} | {mega(ip)} ({mega(isp)}) | {mega(ic)} ({mega(isc)}) | {fmt(ratio(ip, ic))} | {wp} / {wc} |")
print()
print("The second floor, `open_min_c` (the same job on a two-table schema, nothing checked), in the same runs:")
print()
print("| history | CPU min (ms) | planner / min | C twin / min | peak RSS min (KiB) | planner / min | C twin / min | instructions min | planner / min |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for t, n, cp, cc, wp, wc, rp, rc, ip, isp, ic, isc, cm, rm, im in rows:
    print(f"| {t} | {cm} | {fmt(ratio(cp, cm))} | {fmt(ratio(cc, cm))} | {rm} | {fmt(ratio(rp, rm))} | {fmt(ratio(rc, rm))} "
          f"| {mega(im)} | {fmt(ratio(ip, im))} |")
print()
# Growth is judged on instructions and peak RSS (deterministic enough); CPU times of ~5 ms runs
# move by 10% with the machine's load, so they are shown but not judged.
print("Growth against fresh (1.00x = flat; judged flat when instructions <= 1.05x and peak RSS <= 1.10x):")
print()
print("| history | CPU planner | CPU C | peak RSS planner | peak RSS C | instructions planner | instructions C | planner flat? |")
print("|---|--:|--:|--:|--:|--:|--:|:-:|")
for r in rows[1:]:
    g = {i: ratio(r[i], rows[0][i]) for i in (2, 3, 6, 7, 8, 10)}
    flat = g[6] <= 1.10 and (g[8] is None or g[8] <= 1.05)
    ok = ok and flat
    print(f"| {r[0]} | " + " | ".join(fmt(g[i]) for i in (2, 3, 6, 7, 8, 10)) + f" | {verdict(flat)} |")
print()
print("With a connection attached (`bench/hold_connection.py` keeps one open, as the installed ticker does: the "
      "measured program is never the last to close, so it neither checkpoints nor deletes the WAL):")
print()
print("| history | CPU planner / C twin / min (ms) | CPU planner / C twin | wall planner / C twin / min (ms) | wall planner / C twin |")
print("|---|--:|--:|--:|--:|")
for t, cp, cc, cm, wp, wc, wm in attached:
    print(f"| {t} | {cp} / {cc} / {cm} | {fmt(ratio(cp, cc))} | {wp} / {wc} / {wm} | {fmt(ratio(wp, wc))} |")
print()
print("Flushes (fsync + fdatasync, `strace -f -c`) of one run on the fresh template:")
print()
print("| | planner | C twin | min |")
print("|---|--:|--:|--:|")
for mode, fp, fc, fm in flushes:
    print(f"| {mode} | {fp} | {fc} | {fm} |")
print()
if baseline:
    print("Against the baseline (the same `open` by BASELINE on templates it made; issue 20: CPU and peak RSS <= 1.05x):")
    print()
    print("| history | CPU planner / baseline (ms) | CPU ratio | peak RSS planner / baseline (KiB) | RSS ratio | <= 1.05x | instructions planner / baseline | instr. ratio |")
    print("|---|--:|--:|--:|--:|:-:|--:|--:|")
    for t, cp, cb, rp, rb, ip, ib in baseline:
        cr, rr = ratio(cp, cb), ratio(rp, rb)
        ok = ok and cr <= 1.05 and rr <= 1.05
        print(f"| {t} | {cp} / {cb} | {fmt(cr)} | {rp} / {rb} | {fmt(rr)} | {verdict(cr <= 1.05 and rr <= 1.05)} "
              f"| {mega(ip)} / {mega(ib)} | {fmt(ratio(ip, ib))} |")
    print()
print(f"Overall: {verdict(ok)} (CPU <= {CPU}x and peak RSS <= {RSS}x the C twin on every history, and no growth"
      + (", and within 1.05x of the baseline)" if baseline else ")"))
PY
)

cat > "$ROOT/bench/RESULTS.md" <<EOF
# \`planner open\` against C programs doing the same SQLite work, and the same job

Generated by \`bench/open_bench.sh\`; do not edit by hand.

- Command: \`BUILD_DIR=${BUILD_DIR#$ROOT/} RUNS=$RUNS ROUNDS=$ROUNDS WARMUP=$WARMUP RSS_RUNS=$RSS_RUNS bench/open_bench.sh\`
- Date: $(date -u +%Y-%m-%dT%H:%MZ); machine: nproc $(nproc), kernel $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); load before the run: $LOAD_BEFORE
- Source: $SOURCE;${BASELINE:+ baseline: \`$BASELINE\` (${BASELINE_LABEL:-$("$BASELINE" --version)});} $("$PLANNER" --version | sed 's/^/planner /'); SQLite $(sqlite3 --version | cut -d' ' -f1); $(swift --version 2>&1 | head -1)
- Each program: \`TZ=Asia/Seoul planner open --db WORK --now $NOW\` and \`TZ=Asia/Seoul bench/out/open_c WORK $NOW\`, WORK a fresh copy of the template before every run (cancels the 20 slots left on Monday, adds 20).
- CPU: user+system per run, the median over $ROUNDS rounds of the mean of \`hyperfine -N --runs $((RUNS / ROUNDS)) --warmup $WARMUP --prepare 'mv NEXT-SYNCED-COPY WORK' -n planner '...' -n c '...'\` ($RUNS runs of each in all).
- Peak RSS: median of $RSS_RUNS runs of \`/usr/bin/time -f %M\`. Instructions: \`valgrind --tool=callgrind\`, one run, in total and (in brackets) inside libsqlite3.
- Both programs were checked to leave byte-for-byte the same rows (request, app_open, plan) on every template; \`open_min_c\` (\`TZ=Asia/Seoul bench/out/open_min_c WORK_MIN $NOW\`, its own two-table templates with the same history lengths) was checked to cancel the same 20 slots and leave the same 64 pending identifiers.

$TABLE

Query plans on the decade database (the three state reads of \`readPlanState\`, then the count of the cap trigger):

\`\`\`
$EQP
\`\`\`
EOF
cat "$ROOT/bench/RESULTS.md"
grep -q '^Overall: PASS' "$ROOT/bench/RESULTS.md" || exit 2
