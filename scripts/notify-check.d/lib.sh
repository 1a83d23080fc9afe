# Shared by the per-server scripts of scripts/notify-check: each runs as an unprivileged user inside its own
# `dbus-run-session` (a private session bus), with PLANNER, WORK (a folder of its own) and SHOTS (where the
# screenshot goes) set. A server script starts its display and server, then calls `answer_run` per answer.
set -euo pipefail
export TZ=Asia/Seoul
TITLE="Time to study?"
BODY="Start today's lesson: reminders stop for the day once you begin."
SERVER_NAME=${SERVER_NAME:?}
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

say() { echo "notify-check: $SERVER_NAME: $*"; }
fail() { echo "notify-check: $SERVER_NAME: FAILED: $*" >&2; [[ -z ${RUN:-} ]] || { echo "--- ticker log" >&2; cat "$RUN/tick.err" >&2; }; exit 1; }
# wait_for SECONDS WHAT COMMAND...: polls every 0.1 s until COMMAND succeeds.
wait_for() {
    local seconds=$1 what=$2; shift 2
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || fail "no $what within ${seconds} s"
        sleep 0.1
    done
}
sql() { sqlite3 "$RUN/planner.db" "$1"; }
bus() { gdbus call --session --dest "$1" --object-path "$2" --method "$3" "${@:4}"; }

# Waits until the server just started owns org.freedesktop.Notifications on this bus (so that notify-send never
# activates some other installed server): the process PID, or one whose command line holds TEXT (--cmdline).
wait_for_server() {
    owner() { bus org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID \
                  org.freedesktop.Notifications 2>/dev/null | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p'; }
    owns() {
        local pid; pid=$(owner); [[ -n $pid ]] || return 1
        if [[ $1 == --cmdline ]]; then tr '\0' ' ' </proc/"$pid"/cmdline | grep -qF -- "$2"; else [[ $pid == "$1" ]]; fi
    }
    wait_for 20 "org.freedesktop.Notifications owned by $SERVER_NAME ($*)" owns "$@"
    monitor_notify
    local name
    name=$(bus org.freedesktop.Notifications /org/freedesktop/Notifications org.freedesktop.Notifications.GetServerInformation)
    say "on the bus as $name"
}

# Every Notify call on this bus, as dbus-monitor prints it (started by wait_for_server).
monitor_notify() {
    dbus-monitor --session "type='method_call',interface='org.freedesktop.Notifications',member='Notify'" >"$WORK/notify.txt" 2>&1 &
    pids+=($!)
    sleep 0.2
}

# check_actions "key=Label, ...": the actions of the last Notify call, in the order sent.
check_actions() {
    local sent
    sent=$(awk '/member=Notify/ { n = ""; inside = 0; seen = 0 }
                /^   array \[/ && !seen { inside = 1; seen = 1; i = 0; next }
                inside && /^   \]/ { inside = 0; last = n }
                inside { sub(/^ *string "/, ""); sub(/"$/, ""); n = n (i % 2 ? "=" : (i ? ", " : "")) $0; i++ }
                END { print last }' "$WORK/notify.txt")
    [[ $sent == "$1" ]] || fail "actions sent: '$sent', expected '$1'"
    say "actions sent: $sent"
}

# The planner's icon where `planner setup` puts it (~/.local/share/icons), taken from the package files.
install_icon() {
    local files=$WORK/package-files icon=$HOME/.local/share/icons/hicolor/48x48/apps/planner.xpm
    [[ -e $icon ]] && return
    "$PLANNER" setup --package-files "$files" >/dev/null
    mkdir -p "$(dirname "$icon")" && cp "$files/usr/share/icons/hicolor/48x48/apps/planner.xpm" "$icon"
}

# start_run NAME [SNOOZE]: a fresh database (every day a study day, slots all day but none due during the run), a
# live `planner tick`, and a study reminder due in a second (a one-off named like a snoozed slot is a study reminder:
# it offers the answers).
# Leaves RUN (its folder) and ID set; the ticker runs until the script ends.
start_run() {
    [[ -z ${TICKER:-} ]] || kill "$TICKER" 2>/dev/null || true   # the last run's ticker
    RUN=$WORK/$1; mkdir -p "$RUN"
    install_icon
    "$PLANNER" config set days daily --db "$RUN/planner.db" >/dev/null
    # Slots all day, but none within 14 minutes of now: a real slot coming due during the run would pop up over
    # this run's reminder and take its click (CI once snoozed the 21:00 slot instead).
    local start=$(( (10#$(date +%M) + 15) % 30 ))
    "$PLANNER" config set window "$(printf '00:%02d-23:59' "$start")" --db "$RUN/planner.db" >/dev/null
    [[ -z ${2:-} ]] || "$PLANNER" config set snooze "$2" --db "$RUN/planner.db" >/dev/null
    "$PLANNER" refill --db "$RUN/planner.db" >/dev/null
    "$PLANNER" tick --db "$RUN/planner.db" --verbose >"$RUN/tick.out" 2>"$RUN/tick.err" &
    TICKER=$!; pids+=("$TICKER")
    wait_for 10 "ticker start" grep -q "delivering from" "$RUN/tick.err"
    ID=Noti_AppOpenPromotion_$(date +%Y_%m_%d)_09_30_snoozed
    "$PLANNER" add --in 1s --title "$TITLE" --body "$BODY" --id "$ID" --db "$RUN/planner.db" >/dev/null
    delivered() { [[ $(sql "SELECT state FROM request WHERE identifier = '$ID' ORDER BY id DESC LIMIT 1") == delivered ]]; }
    wait_for 10 "delivery of $ID" delivered
    [[ -z $(cat "$RUN/tick.out") ]] || fail "the ticker wrote to stdout, not to the server: $(cat "$RUN/tick.out")"
    say "$ID: $(sql "SELECT reason FROM request_history WHERE identifier = '$ID' AND state = 'delivered'")"
}

answered() { [[ $(sql "SELECT count(*) FROM notification_action") == 1 ]]; }
# No notify-send of this user left running: an answered reminder's has ended (nothing piles up).
none_waiting() { ! pgrep -u "$(id -u)" -x notify-send >/dev/null; }

# check_stays SECONDS SHOWN...: this run's reminder still on screen SECONDS after its delivery (it asks for no
# expiry), the command SHOWN tried every half second; else says when it left the screen.
check_stays() {
    local seconds=$1 delivered now seen=0; shift
    delivered=$(sql "SELECT delivered_at_ms FROM request WHERE identifier = '$ID' AND state = 'delivered' ORDER BY id DESC LIMIT 1")
    [[ -n $delivered ]] || fail "$ID not delivered"
    # The last Notify call's expire_timeout (its one int32 at the top level): -1 is the server's default, 0 none.
    say "expire_timeout sent: $(awk '/member=Notify/ { t = "" } /^   int32 / { t = $2 } END { print t }' "$WORK/notify.txt")"
    while now=$(($(date +%s%3N) - delivered)); "$@" >/dev/null 2>&1; do
        ((now < seconds * 1000)) || { say "still on screen $(tenths "$now") s after delivery"; return; }
        seen=$now; sleep 0.5
    done
    fail "the reminder left the screen between $(tenths "$seen") and $(tenths "$now") s after delivery (asked to stay: ${seconds} s)"
}
tenths() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# After "Start studying" (recorded as KEY: default or start): the day opened like `planner open`, the rest of
# today's reminders cancelled.
check_started() {
    local key=$1
    wait_for 10 "answer recorded" answered
    [[ $(sql "SELECT action FROM notification_action") == "$key" ]] || fail "recorded $(sql "SELECT action FROM notification_action"), not $key"
    [[ $(sql "SELECT count(*) FROM app_open") == 1 ]] || fail "no app_open row after Start studying"
    local day left outcome
    day=$(sql "SELECT local_date FROM app_open")
    left=$(sql "SELECT count(*) FROM request WHERE kind = 'slot' AND state = 'pending' AND local_date = '$day'")
    [[ $left == 0 ]] || fail "$left of today's slots still pending after Start studying"
    outcome=$(sql "SELECT outcome FROM notification_action")
    [[ $outcome == "opened $day"* ]] || fail "outcome: $outcome"
    wait_for 5 "the answered reminder's notify-send to end" none_waiting
    say "Start studying -> $key: $outcome"
}

# After "Snooze": the same reminder pending again SNOOZE_MS after the answer, no open.
check_snoozed() {
    local snooze_ms=$1
    wait_for 10 "answer recorded" answered
    [[ $(sql "SELECT action FROM notification_action") == snooze ]] || fail "recorded $(sql "SELECT action FROM notification_action"), not snooze"
    [[ $(sql "SELECT count(*) FROM app_open") == 0 ]] || fail "Snooze opened the day"
    local delay
    delay=$(sql "SELECT r.fire_at_ms - a.at_ms FROM request r, notification_action a WHERE r.identifier = '$ID' AND r.state = 'pending'")
    [[ -n $delay ]] && ((delay > snooze_ms - 1000 && delay < snooze_ms + 1000)) || fail "no pending reminder ${snooze_ms} ms after the answer (got '$delay')"
    wait_for 5 "the answered reminder's notify-send to end" none_waiting
    say "Snooze -> snooze: $(sql "SELECT outcome FROM notification_action")"
}

# Keeps a small copy of a screenshot for the README: the region WxH+X+Y of FULL, as SHOTS/NAME.png.
keep_shot() {
    local full=$1 region=$2
    mkdir -p "$SHOTS"
    convert "$full" -crop "$region" +repage -strip "$SHOTS/$SERVER_NAME.png"
    say "screenshot: $SHOTS/$SERVER_NAME.png ($(stat -c %s "$SHOTS/$SERVER_NAME.png") bytes)"
}
