#!/usr/bin/env bash
# The live ticker (`planner tick`, real clock) as the README installs it (release, static Swift stdlib):
#   1. lateness of 40 one-off requests 150 ms apart, from SQL (delivered_notifications.lateness_ms) and as
#      the reader of the ticker's stdout sees it; RUNS runs, each on a fresh empty database and ticker;
#      target p99 <= 10 ms. Then one more run under strace to split each delivery into wake-up, claim
#      transaction, its fdatasync and the write (DIAGNOSE=0 skips it), and the disk's bare fdatasync time;
#   2. context switches of an idle ticker (next request an hour away) over IDLE_SECONDS; target 0;
#   3. its VmRSS and VmHWM; target <= 12 MiB;
#   4. SIGTERM: time to exit and exit status; target 0 within 1 s.
# Writes bench/TICK_RESULTS.md (keeping anything below its hand-written marker line), scratch files in
# bench/out/tick/. Exit status: 0 all targets met, 1 error, 2 a target missed.
#
#   bench/tick_bench.sh                                   # builds into ./.build, as the README's install does
#   BUILD_DIR=.build-bench RUNS=3 IDLE_SECONDS=60 IDLE_STRACE_SECONDS=20 DIAGNOSE=1 bench/tick_bench.sh
#   PLANNER=/path/to/planner RESULTS=/tmp/x.md bench/tick_bench.sh  # measure another binary, no build
#   BUSY=2 bench/tick_bench.sh                            # the lateness runs beside two spinning processes
set -euo pipefail
shopt -s inherit_errexit  # a failed command inside $(...) stops the script too
export LC_ALL=C           # EPOCHREALTIME with a decimal point, whatever the locale
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out/tick
HELPER=$ROOT/bench/tick_stats.py
BUILD_DIR=${BUILD_DIR:-$ROOT/.build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
RESULTS=${RESULTS:-$ROOT/bench/TICK_RESULTS.md}
BUSY=${BUSY:-0}
RUNS=${RUNS:-3} REQUESTS=${REQUESTS:-40} SPACING_MS=${SPACING_MS:-150} LEAD_MS=${LEAD_MS:-3000}
IDLE_SECONDS=${IDLE_SECONDS:-60} IDLE_STRACE_SECONDS=${IDLE_STRACE_SECONDS:-20} DIAGNOSE=${DIAGNOSE:-1}
TARGET_P99_MS=10 TARGET_RSS_KIB=$((12 * 1024))
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
export TZ=Asia/Seoul  # any real zone: stdout prints fire_at with its offset, which the reader parses
rm -rf "$OUT"; mkdir -p "$OUT"

command -v sqlite3 >/dev/null || apt-get install -y sqlite3 >/dev/null
if [ "$DIAGNOSE" = 1 ] || [ "$IDLE_STRACE_SECONDS" -gt 0 ]; then command -v strace >/dev/null || apt-get install -y strace >/dev/null; fi

if [ -z "${PLANNER:-}" ]; then
    # The binary the README installs: release, Swift runtime linked in statically.
    (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path "$BUILD_DIR")
    PLANNER=$BUILD_DIR/release/planner
fi

# Whatever is still running when the script ends, however it ends, is stopped: the ticker (which
# would otherwise deliver into a dead pipe for ever), the stdout reader and strace.
TICK_PID= READER_PID= STRACE_PID=
cleanup() {
    for pid in $STRACE_PID $TICK_PID $READER_PID; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
}
busy_pids=()
stop_busy() { if ((${#busy_pids[@]})); then kill "${busy_pids[@]}" 2>/dev/null || true; wait "${busy_pids[@]}" 2>/dev/null || true; fi; busy_pids=(); }
trap 'stop_busy; cleanup' EXIT
trap 'exit 130' INT TERM  # run the EXIT trap on Ctrl-C too

now_ms() { local us=${EPOCHREALTIME/./}; echo $((us / 1000)); }  # CLOCK_REALTIME, as the ticker's clock
iso_ms() { date -u -d "@$(($1 / 1000)).$(printf %03d $(($1 % 1000)))" +%Y-%m-%dT%H:%M:%S.%3NZ; }
sleep_until_ms() { local left=$(($1 - $(now_ms))); [ $left -le 0 ] || sleep "$((left / 1000)).$(printf %03d $((left % 1000)))"; }
kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# Summed over threads: /proc/PID/status counts only the main thread's switches.
ctxsw() { cat /proc/"$1"/task/*/status | awk '$1 == "voluntary_ctxt_switches:" { v += $2 }
                                             $1 == "nonvoluntary_ctxt_switches:" { n += $2 } END { print v + 0, n + 0 }'; }

# Starts a ticker on an empty database in DIR/db/ with its stdout going to the timestamping reader.
# The database gets a folder of its own because the ticker watches the database's folder with
# inotify: the reader's output or strace's log next to it would wake it up on every line.
# With a second argument, the ticker runs under that strace command (TICK_PID is then found as
# strace's child; STRACE_PID is what the shell waits for).
start_ticker() {
    local dir=$1
    rm -rf "$dir"; mkdir -p "$dir/db"
    mkfifo "$dir/stdout.fifo"
    python3 "$HELPER" read "$dir/stdout.fifo" >"$dir/stdout.tsv" &
    READER_PID=$!
    if [ -n "${2:-}" ]; then
        $2 "$PLANNER" tick --sink stdout --db "$dir/db/planner.db" >"$dir/stdout.fifo" 2>"$dir/tick.log" &
        STRACE_PID=$!
        for _ in $(seq 100); do TICK_PID=$(pgrep -P "$STRACE_PID" || true); [ -z "$TICK_PID" ] || break; sleep 0.1; done
    else
        "$PLANNER" tick --sink stdout --db "$dir/db/planner.db" >"$dir/stdout.fifo" 2>"$dir/tick.log" &
        TICK_PID=$!
    fi
    # Ready once it has said so: by then its inotify watch and timer exist, so no add is overlooked.
    for _ in $(seq 100); do grep -qs "delivering from" "$dir/tick.log" && return; sleep 0.1; done
    echo "the ticker did not start: $(cat "$dir/tick.log")" >&2; exit 1
}

# SIGTERM, then the time until the ticker is reaped (TERM_MS) and its exit status (TERM_RC). Called in
# the main shell, never in $(...): only the ticker's parent can wait for it.
stop_ticker() {
    local t0 t1 rc=0
    t0=${EPOCHREALTIME/./}
    kill -TERM "$TICK_PID"
    if [ -n "$STRACE_PID" ]; then wait "$STRACE_PID" || rc=$?; else wait "$TICK_PID" || rc=$?; fi
    t1=${EPOCHREALTIME/./}
    TICK_PID= STRACE_PID=
    wait "$READER_PID" || true  # it ends at the pipe's end of file
    READER_PID=
    TERM_MS="$(((t1 - t0) / 1000)).$(printf %03d $(((t1 - t0) % 1000)))" TERM_RC=$rc
}

# One run: REQUESTS one-offs at now+LEAD_MS + i*SPACING_MS, wait until none is pending, read the lateness.
lateness_run() {
    local dir=$1 first margin deadline done_count
    local db=$dir/db/planner.db
    first=$(($(now_ms) + LEAD_MS))
    printf '{' >"$dir/schedule.json"
    for i in $(seq 0 $((REQUESTS - 1))); do
        local at=$((first + i * SPACING_MS))
        # --id: the default identifier has one-second resolution and 150 ms apart would collide.
        "$PLANNER" add --db "$db" --at "$(iso_ms $at)" --id "bench_$i" --title "request $i" >/dev/null
        printf '%s"bench_%d": %d' "$([ "$i" = 0 ] || echo ,)" "$i" "$at" >>"$dir/schedule.json"
    done
    echo '}' >>"$dir/schedule.json"
    margin=$((first - $(now_ms)))
    # Otherwise the first requests would be claimed while adds still hold the write lock.
    [ $margin -gt 0 ] || { echo "the adds took longer than LEAD_MS=$LEAD_MS: the first request was already due" >&2; exit 1; }
    # Sleep through the run (no polling of the database while it goes on), then allow up to 30 s
    # more for stragglers; anything still pending then is counted as missed.
    sleep_until_ms $((first + (REQUESTS - 1) * SPACING_MS + 500))
    deadline=$(($(now_ms) + 30000))
    while done_count=$(sqlite3 "$db" "SELECT count(*) FROM request WHERE state NOT IN ('pending', 'delivering')") &&
          [ "$done_count" -lt "$REQUESTS" ] && [ "$(now_ms)" -lt $deadline ]; do sleep 0.2; done
    sqlite3 "$db" "SELECT lateness_ms FROM delivered_notifications" >"$dir/sql_lateness.txt"
    # Per request, for the cross-check with stdout and for a split without strace: claimed_at is the
    # clock read just before the claim transaction, so claimed_at - fire_at is the wake-up delay and
    # delivered_at - claimed_at the claim commit plus the write to stdout (both in whole ms).
    sqlite3 "$db" "SELECT identifier, delivered_at_ms - fire_at_ms, claimed_at_ms - fire_at_ms
                   FROM request WHERE state = 'delivered'" >"$dir/sql_by_id.txt"
    echo "$margin"
}

echo "== lateness: $RUNS runs of $REQUESTS requests $SPACING_MS ms apart, $BUSY busy neighbour(s)" >&2
# BUSY processes spinning on the CPU the whole time (issue 31: two busy neighbours on two cores).
for _ in $(seq "$BUSY"); do (while :; do :; done) & busy_pids+=($!); done
for r in $(seq "$RUNS"); do
    dir=$OUT/run$r
    start_ticker "$dir"
    margin=$(lateness_run "$dir")
    hwm=$(kib "$TICK_PID" VmHWM)
    stop_ticker
    printf '{"margin_ms": %d, "vmhwm_kib": %d, "sigterm_ms": %s, "sigterm_rc": %d}\n' \
        "$margin" "$hwm" "$TERM_MS" "$TERM_RC" >"$dir/meta.json"
    python3 "$HELPER" run "run $r" "$dir" "$REQUESTS"
done
stop_busy

if [ "$DIAGNOSE" = 1 ]; then
    echo "== where the time goes: one more run with the ticker under strace" >&2
    dir=$OUT/diag
    # Started under strace rather than attached (-p) so that --seccomp-bpf applies: only the traced
    # calls stop the ticker, which keeps strace's own delay small. The log goes outside the database's
    # folder (inotify, see start_ticker).
    start_ticker "$dir" "strace -f -ttt -T --seccomp-bpf -e trace=poll,fdatasync,fsync,write -o $dir/strace.txt"
    lateness_run "$dir" >/dev/null
    stop_ticker
    python3 "$HELPER" strace "$dir"
    # The same disk's fdatasync without SQLite or strace, at a similar size and pace.
    python3 "$HELPER" fsync "$OUT" 200
fi

echo "== idle: next request an hour away, ${IDLE_SECONDS} s" >&2
dir=$OUT/idle
start_ticker "$dir"
"$PLANNER" add --db "$dir/db/planner.db" --in 1h --id bench_idle --title "an hour away" >/dev/null
# The add wakes the ticker (inotify on the WAL) and it re-arms its timer for an hour: let that settle
# before counting.
sleep 2
read -r v0 n0 < <(ctxsw "$TICK_PID")
sleep "$IDLE_SECONDS"
read -r v1 n1 < <(ctxsw "$TICK_PID")
rss=$(kib "$TICK_PID" VmRSS) hwm=$(kib "$TICK_PID" VmHWM) threads=$(kib "$TICK_PID" Threads)
calls=null
if [ "$IDLE_STRACE_SECONDS" -gt 0 ]; then
    # A separate window after the counted one: attaching strace itself interrupts the ticker's poll
    # (one restarted call and a couple of switches), which must not be counted as the ticker waking.
    strace -f -c -U calls,name -o "$OUT/idle-strace.txt" -p "$TICK_PID" 2>/dev/null &
    STRACE_PID=$!
    sleep "$IDLE_STRACE_SECONDS"
    kill -INT "$STRACE_PID"; wait "$STRACE_PID" || true; STRACE_PID=
    # restart_syscall is the poll that the attach interrupted, resumed by the kernel: not a wake-up.
    calls=$(awk '$2 != "total" && $2 != "restart_syscall" && $1 ~ /^[0-9]+$/ { c += $1 } END { print c + 0 }' "$OUT/idle-strace.txt")
fi
stop_ticker
printf '{"seconds": %d, "voluntary": %d, "nonvoluntary": %d, "threads": %d, "vmrss_kib": %d, "vmhwm_kib": %d, "strace_seconds": %d, "strace_calls": %s, "sigterm_ms": %s, "sigterm_rc": %d}\n' \
    "$IDLE_SECONDS" $((v1 - v0)) $((n1 - n0)) "$threads" "$rss" "$hwm" "$IDLE_STRACE_SECONDS" "$calls" "$TERM_MS" "$TERM_RC" >"$dir/idle.json"

command_line="BUILD_DIR=${BUILD_DIR#$ROOT/} BUSY=$BUSY RUNS=$RUNS REQUESTS=$REQUESTS SPACING_MS=$SPACING_MS LEAD_MS=$LEAD_MS IDLE_SECONDS=$IDLE_SECONDS IDLE_STRACE_SECONDS=$IDLE_STRACE_SECONDS DIAGNOSE=$DIAGNOSE bench/tick_bench.sh"
[ "$PLANNER" = "$BUILD_DIR/release/planner" ] || command_line="PLANNER=$PLANNER $command_line"
source_desc="$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- Sources Package.swift migrations || echo ' plus uncommitted changes in Sources/')"
python3 - "$OUT/meta.json" <<PY
import json, sys
json.dump({
    "command": """$command_line""", "date": "$(date -u +%Y-%m-%dT%H:%MZ)", "nproc": "$(nproc)", "kernel": "$(uname -r)",
    "cpu": """$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')""",
    "load_before": "$LOAD_BEFORE", "load_after": "$(cut -d" " -f1-3 /proc/loadavg)",
    "source": """$source_desc""", "version": "planner $("$PLANNER" --version)", "sqlite": "$(sqlite3 --version | cut -d' ' -f1)",
    "swift": """$(swift --version 2>&1 | head -1 || echo 'swift: not on PATH')""", "planner": """${PLANNER#$ROOT/}""", "tz": "$TZ",
    "fs": """$(df -T "$OUT" | awk 'NR == 2 { print $2 " (" $1 ")" }')""",
    "requests": $REQUESTS, "lead_ms": $LEAD_MS, "spacing_ms": $SPACING_MS,
    "target_p99_ms": $TARGET_P99_MS, "target_rss_kib": $TARGET_RSS_KIB,
}, open(sys.argv[1], "w"))
PY
python3 "$HELPER" report "$OUT" "$RESULTS" "$OUT/meta.json"
