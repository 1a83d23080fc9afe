#!/usr/bin/env bash
# `planner stats --weeks 520` (and `plan`/`export` a year ahead) on ten years of history, with the release
# binary the README installs: wall time (hyperfine) beside `planner status` on the same database as a
# reference, instructions (callgrind), and the query plans of every statement `stats` runs, taken from
# Sources/PlannerStore/RecordStore.swift itself. Target (issue 11): stats --weeks 520 under 50 ms.
# Writes bench/STATS_RESULTS.md.
#
#   bench/stats_bench.sh
#   KEEP_TEMPLATES=1 bench/stats_bench.sh   # reuse bench/out/decade.db (made by bench/make_history.py)
set -euo pipefail
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
NOW=2026-11-23T12:00
export TZ=Asia/Seoul
mkdir -p "$OUT"
command -v hyperfine >/dev/null || apt-get install -y hyperfine >/dev/null
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null

(cd "$ROOT" && swift build -c release --static-swift-stdlib >/dev/null)
PLANNER=$ROOT/.build/release/planner
[ "${KEEP_TEMPLATES:-}" = 1 ] && [ -f "$OUT/decade.db" ] || python3 "$ROOT/bench/make_history.py" "$PLANNER" "$OUT"
DB=$OUT/stats.db
cp "$OUT/decade.db" "$DB"; rm -f "$DB-wal" "$DB-shm"
"$PLANNER" refill --db "$DB" --now "$NOW"  # migrated to this binary's schema, then left alone
ROWS=$(sqlite3 "$DB" "SELECT (SELECT count(*) FROM request) || ' requests, ' || (SELECT count(*) FROM app_open) || ' opens'")
DAYS=$("$PLANNER" stats --weeks 520 --json --db "$DB" --now "$NOW" | grep -c '"date"')

hyperfine -N --warmup 5 --runs 50 --export-json "$OUT/stats-hyperfine.json" \
    "$PLANNER status --db $DB --now $NOW" \
    "$PLANNER stats --weeks 520 --json --db $DB --now $NOW" \
    "$PLANNER stats --weeks 520 --db $DB --now $NOW" \
    "$PLANNER stats --db $DB --now $NOW" \
    "$PLANNER plan --days 366 --json --db $DB --now $NOW" \
    "$PLANNER export --ics --days 366 --db $DB --now $NOW" >/dev/null

instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$OUT/stats-valgrind.log" "$PLANNER" "$@" >/dev/null
    awk '/refs:/ { gsub(",", "", $4); print $4 }' "$OUT/stats-valgrind.log"
}

# Every SQL text `stats` prepares, with its parameters bound to this benchmark's range, through EXPLAIN QUERY PLAN.
PLANS=$(python3 - "$ROOT/Sources/PlannerStore/RecordStore.swift" "$DB" <<'PY'
import re, sqlite3, sys
source = open(sys.argv[1]).read()
func = source[source.index("func studyRecordInput"):source.index("func planAheadInput")]
texts = re.findall(r'prepare\(\s*"""\n(.*?)"""\)', func, re.S) + re.findall(r'prepare\(\s*"([^"\n]*)"\)', func)
con = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
import datetime as dt
today = dt.date(2026, 11, 23)  # a Monday: 520 weeks end with its week
first = today - dt.timedelta(days=7 * 519)
day = lambda d: (d - dt.date(1970, 1, 1)).days
args = [first.isoformat(), today.isoformat(), (day(first) - 2) * 86_400_000, (day(today) + 3) * 86_400_000]
for text in texts:
    sql = " ".join(line.strip() for line in text.strip().splitlines())
    n = len(set(re.findall(r"\?\d", sql))) or sql.count("?")
    print(f"-- {sql}")
    for row in con.execute("EXPLAIN QUERY PLAN " + sql, args[:n]):
        print(f"   {row[3]}")
PY
)

python3 - "$OUT/stats-hyperfine.json" > "$OUT/stats-times.txt" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    name = r["command"].split("/planner ", 1)[1].split(" --db")[0]
    print(f"| `planner {name}` | {r['median'] * 1000:.1f} | {r['min'] * 1000:.1f} | {r['max'] * 1000:.1f} |")
PY

{
    echo "# stats, plan and export on ten years of history"
    echo
    echo "Command: \`bench/stats_bench.sh\` ($(date -u +%Y-%m-%d), commit $(git -C "$ROOT" rev-parse --short HEAD)," \
         "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))."
    echo "Database: bench/out/decade.db from \`bench/make_history.py\` ($ROWS), now $NOW Asia/Seoul;" \
         "\`stats --weeks 520\` reports $DAYS days."
    echo
    echo "Target (issue 11): \`stats --weeks 520\` answers in under 50 ms."
    echo
    echo "## Wall time (hyperfine -N, 50 runs each after 5 warm-ups, one run side by side), ms"
    echo
    echo "| command | median | min | max |"
    echo "|---|---|---|---|"
    cat "$OUT/stats-times.txt"
    echo
    echo "## Instructions (callgrind, one run each)"
    echo
    echo "| command | instructions |"
    echo "|---|---|"
    for args in "status" "stats --weeks 520 --json" "stats" "plan --days 366 --json"; do
        # shellcheck disable=SC2086
        echo "| \`planner $args\` | $(instructions $args --db "$DB" --now "$NOW") |"
    done
    echo
    echo "## Query plans of what \`stats\` runs (from RecordStore.swift)"
    echo
    echo '```'
    echo "$PLANS"
    echo '```'
} > "$ROOT/bench/STATS_RESULTS.md"
cat "$ROOT/bench/STATS_RESULTS.md"
