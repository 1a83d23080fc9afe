# Sourced by the guest's /init before the scenarios: how a scenario runs the planner and reports to the
# host. Everything the host reads is one console line starting with @@ (the kernel is told to be quiet).

# Starts a scenario on a fresh database: each scenario's expectations stand alone.
begin() {
    SCENARIO=$1
    export PLANNER_DB=/data/$1.db
    DELIVERIES=/data/$1.deliveries
    : > "$DELIVERIES"
    echo "@@SCENARIO $1 begin"
}

# A value for the host, e.g. the guest's clock at a step: `mark jump "$(date +%s)"`.
mark() { echo "@@V $SCENARIO $1 $2"; }

# The planner; a failing command is reported to the host, which fails the check.
planner() {
    /bin/planner "$@" || echo "@@ERR $SCENARIO planner $* exited $?"
}

# The live ticker on the real clock (no --now), delivering through /bin/deliver, which appends
# "ID FIRE_AT GUEST_EPOCH" to $DELIVERIES. Returns once the ticker sleeps in poll(2): its timer is armed.
start_ticker() {
    /bin/planner tick --verbose --exec /bin/deliver "$DELIVERIES" 2>"/data/$SCENARIO.log" &
    TICKER=$!
    n=100
    while [ $n -gt 0 ]; do
        grep -q poll "/proc/$TICKER/wchan" 2>/dev/null && return 0
        usleep 100000
        n=$((n - 1))
    done
    echo "@@ERR $SCENARIO the ticker did not go to sleep in poll(2) within 10 s"
}

stop_ticker() {
    kill "$TICKER"
    wait "$TICKER" || echo "@@ERR $SCENARIO the ticker exited $? when stopped"
}

# Waits up to $2 seconds (guest time) for request $1 to reach the delivery program.
wait_delivered() {
    n=$(($2 * 5))
    while [ $n -gt 0 ]; do
        grep -q "^$1 " "$DELIVERIES" && return 0
        usleep 200000
        n=$((n - 1))
    done
    echo "@@ERR $SCENARIO $1 was not delivered within $2 s"
}

# Suspends to RAM for real; the host wakes the guest from the qemu monitor after $1 seconds.
suspend_for() {
    echo "@@SUSPEND $SCENARIO $1"
    echo mem > /sys/power/state || echo "@@ERR $SCENARIO echo mem > /sys/power/state failed"
}

# What the host checks: every request row, every delivery the program saw, and the ticker's log.
dump() {
    echo "@@BEGIN $SCENARIO requests"
    sqlite3 -json "$PLANNER_DB" "SELECT identifier, kind, state, fire_at_ms, delivered_at_ms, reason FROM request ORDER BY fire_at_ms, id"
    echo "@@END"
    echo "@@BEGIN $SCENARIO deliveries"
    cat "$DELIVERIES"
    echo "@@END"
    echo "@@BEGIN $SCENARIO log"
    cat "/data/$SCENARIO.log"
    echo "@@END"
    echo "@@SCENARIO $SCENARIO end"
}
