#!/usr/bin/env bash
# `planner open` at Monday 2026-11-23 12:00 Asia/Seoul with 64 pending, against bench/open_c.c doing
# the same SQLite work, side by side in one run, on three histories (fresh, a year, ten years).
# Targets: CPU (user+sys) <= 2x the C program, peak RSS <= 3x, and no growth with history.
# Writes bench/RESULTS.md. Exit status: 0 all targets met, 1 error or the two programs disagree,
# 2 a target missed.
#
#   bench/open_bench.sh                              # builds into ./.build, as the README's install does
#   BUILD_DIR=.build-bench RUNS=200 ROUNDS=10 RSS_RUNS=20 KEEP_TEMPLATES=1 bench/open_bench.sh
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

# The binary the README installs: release, Swift runtime linked in statically.
(cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$BUILD_DIR")
PLANNER=$BUILD_DIR/release/planner
gcc -O2 -o "$OUT/open_c" "$ROOT/bench/open_c.c" -lsqlite3
[ "${KEEP_TEMPLATES:-}" = 1 ] && [ -f "$OUT/decade.db" ] || python3 "$ROOT/bench/make_history.py" "$PLANNER" "$OUT"

WORK=$OUT/work.db
# Everything both programs can have written, in a stable order (rowids included).
dump() { sqlite3 "$1" "SELECT * FROM request ORDER BY id; SELECT * FROM app_open ORDER BY id; SELECT * FROM plan;"; }
summary() { sqlite3 "$1" "SELECT state, count(*) FROM request GROUP BY state;
                         SELECT identifier, fire_at_ms FROM request WHERE state = 'pending' ORDER BY fire_at_ms;"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# Peak RSS in KiB of the program itself (no shell in between), median of RSS_RUNS runs on fresh copies.
peak_rss() {
    local template=$1; shift
    for _ in $(seq "$RSS_RUNS"); do
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

ROWS=()
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
        for i in $(seq -w $((2 * (RUNS / ROUNDS + WARMUP) + 2))); do cp "$template" "$OUT/pool/$i.db"; done
        sync
        hyperfine -N --runs $((RUNS / ROUNDS)) --warmup "$WARMUP" --prepare "sh -c 'set -- $OUT/pool/*; mv \$1 $WORK'" \
            -n planner "$PLANNER open --db $WORK --now $NOW" -n c "$OUT/open_c $WORK $NOW" \
            --export-json "$OUT/hyperfine-$t-$r.json" >&2
    done
    rm -rf "$OUT/pool"
    read -r cpu_p cpu_c wall_p wall_c < <(python3 - "$OUT"/hyperfine-$t-*.json <<'PY'
import json, statistics, sys
rounds = [json.load(open(f))["results"] for f in sys.argv[1:]]
cpu = [statistics.median((r[i]["user"] + r[i]["system"]) * 1000 for r in rounds) for i in (0, 1)]
wall = [statistics.median(r[i]["mean"] * 1000 for r in rounds) for i in (0, 1)]
print(*("%.3f" % x for x in cpu + wall))
PY
)
    rss_p=$(peak_rss "$template" "$PLANNER" open --db "$WORK" --now "$NOW")
    rss_c=$(peak_rss "$template" "$OUT/open_c" "$WORK" "$NOW")
    ir_p="- -"; ir_c="- -"
    if command -v valgrind >/dev/null; then
        ir_p=$(instructions "$t-planner" "$template" "$PLANNER" open --db "$WORK" --now "$NOW")
        ir_c=$(instructions "$t-c" "$template" "$OUT/open_c" "$WORK" "$NOW")
    fi
    ROWS+=("$t $(sqlite3 "$template" 'SELECT count(*) FROM request') $cpu_p $cpu_c $wall_p $wall_c $rss_p $rss_c $ir_p $ir_c")
done

# The three state reads and the cap trigger's count, as SQLite plans them on the largest history.
EQP=$(sqlite3 "$OUT/decade.db" <<'SQL'
EXPLAIN QUERY PLAN SELECT id, identifier, kind, fire_at_ms, local_date FROM request WHERE state = 'pending';
EXPLAIN QUERY PLAN SELECT identifier FROM request WHERE fire_at_ms > ? AND kind = 'slot' AND state IN ('delivering', 'delivered', 'missed', 'failed', 'cancelled');
EXPLAIN QUERY PLAN SELECT DISTINCT local_date FROM app_open WHERE local_date >= ?;
EXPLAIN QUERY PLAN SELECT count(*) FROM request WHERE state = 'pending';
SQL
)

printf '%s\n' "${ROWS[@]}" > "$OUT/rows.txt"
TABLE=$(python3 - "$OUT/rows.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
num = lambda x: None if x == "-" else float(x)
ratio = lambda a, b: num(a) / num(b) if num(a) and num(b) else None
fmt = lambda r: "-" if r is None else "%.2fx" % r
mega = lambda x: "-" if x == "-" else "%.2f M" % (float(x) / 1e6)
verdict = lambda ok: "PASS" if ok else "FAIL"
print("| history | request rows | CPU planner (ms) | CPU C (ms) | CPU ratio | <= 2x "
      "| peak RSS planner (KiB) | peak RSS C (KiB) | RSS ratio | <= 3x "
      "| instructions planner (in SQLite) | instructions C (in SQLite) | instr. ratio | wall planner / C (ms) |")
print("|---|--:|--:|--:|--:|:-:|--:|--:|--:|:-:|--:|--:|--:|--:|")
ok = True
for t, n, cp, cc, wp, wc, rp, rc, ip, isp, ic, isc in rows:
    cr, rr = ratio(cp, cc), ratio(rp, rc)
    ok = ok and cr <= 2 and rr <= 3
    print(f"| {t} | {int(n):,} | {cp} | {cc} | {fmt(cr)} | {verdict(cr <= 2)} | {rp} | {rc} | {fmt(rr)} "
          f"| {verdict(rr <= 3)} | {mega(ip)} ({mega(isp)}) | {mega(ic)} ({mega(isc)}) | {fmt(ratio(ip, ic))} | {wp} / {wc} |")
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
print(f"Overall: {verdict(ok)} (CPU <= 2x and peak RSS <= 3x the C program on every history, and no growth)")
PY
)

cat > "$ROOT/bench/RESULTS.md" <<EOF
# \`planner open\` against a minimal C program doing the same SQLite work

Generated by \`bench/open_bench.sh\`; do not edit by hand.

- Command: \`BUILD_DIR=${BUILD_DIR#$ROOT/} RUNS=$RUNS ROUNDS=$ROUNDS WARMUP=$WARMUP RSS_RUNS=$RSS_RUNS bench/open_bench.sh\`
- Date: $(date -u +%Y-%m-%dT%H:%MZ); machine: nproc $(nproc), kernel $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); load before the run: $LOAD_BEFORE
- Source: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources Package.swift migrations || echo ' plus uncommitted changes in Sources/'); $("$PLANNER" --version | sed 's/^/planner /'); SQLite $(sqlite3 --version | cut -d' ' -f1); $(swift --version 2>&1 | head -1)
- Each program: \`TZ=Asia/Seoul planner open --db WORK --now $NOW\` and \`TZ=Asia/Seoul bench/out/open_c WORK $NOW\`, WORK a fresh copy of the template before every run (cancels the 20 slots left on Monday, adds 20).
- CPU: user+system per run, the median over $ROUNDS rounds of the mean of \`hyperfine -N --runs $((RUNS / ROUNDS)) --warmup $WARMUP --prepare 'mv NEXT-SYNCED-COPY WORK' -n planner '...' -n c '...'\` ($RUNS runs of each in all).
- Peak RSS: median of $RSS_RUNS runs of \`/usr/bin/time -f %M\`. Instructions: \`valgrind --tool=callgrind\`, one run, in total and (in brackets) inside libsqlite3.
- Both programs were checked to leave byte-for-byte the same rows (request, app_open, plan) on every template.

$TABLE

Query plans on the decade database (the three state reads of \`readPlanState\`, then the count of the cap trigger):

\`\`\`
$EQP
\`\`\`
EOF
cat "$ROOT/bench/RESULTS.md"
grep -q '^Overall: PASS' "$ROOT/bench/RESULTS.md" || exit 2
