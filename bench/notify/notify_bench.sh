#!/usr/bin/env bash
# What one desktop notification costs, side by side in one run:
#   notify-send  spawning notify-send (libnotify-bin), as the planner's ticker does: one process each;
#   sdbus        bench/notify/notify_sdbus.c: one org.freedesktop.Notifications.Notify call through
#                sd-bus (libsystemd), same app name, summary, body, actions and urgency hint;
#   floor        an empty C program (what any spawned process costs here), for reference.
# Real components: a private session bus (dbus-daemon), Xvfb on a free display and dunst showing the
# notifications. Measured, for the "send and return" forms (notify-send without actions; sdbus without
# waiting): wall and user+sys CPU (hyperfine -N, ROUNDS rounds alternating the order), the bus daemon's
# and dunst's CPU over the same runs, peak RSS (/usr/bin/time -f %M, median of RSS_RUNS), instructions
# (callgrind, one run each), D-Bus method calls made (dbus-monitor), and the time from spawn to the id
# being read from the notifier's stdout (bench/notify/id_latency.c). For the waiting forms (with the
# three actions: notify-send waits for ActionInvoked/NotificationClosed, sdbus --wait too): id latency and
# the time from CloseNotification to the notifier's exit. Also checks whether Debian ships static
# archives of libsystemd and libdbus-1 (the planner's release binary is -static-executable).
# Writes bench/notify/RESULTS.md (through notify_report.py); scratch files in OUT (a new /tmp/notify_bench.*
# unless given). Nothing outside bench/notify/ and OUT is written, apart from apt installs and apt-file's cache.
#
#   bench/notify/notify_bench.sh
#   RUNS=200 ROUNDS=4 WARMUP=5 RSS_RUNS=20 LAT_RUNS=100 WAIT_RUNS=50 bench/notify/notify_bench.sh
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RESULTS=${RESULTS:-$HERE/RESULTS.md}
RUNS=${RUNS:-200} ROUNDS=${ROUNDS:-4} WARMUP=${WARMUP:-5} RSS_RUNS=${RSS_RUNS:-20}
LAT_RUNS=${LAT_RUNS:-100} WAIT_RUNS=${WAIT_RUNS:-50}
OUT=${OUT:-$(mktemp -d /tmp/notify_bench.XXXXXX)}
mkdir -p "$OUT"/hf "$OUT"/cg
COMMAND_LINE="$(for v in RUNS ROUNDS WARMUP RSS_RUNS LAT_RUNS WAIT_RUNS; do printf '%s=%s ' "$v" "${!v}"; done)bench/notify/notify_bench.sh"
START_EPOCH=$(date +%s)
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }  # all CPUs, USER_HZ
BUSY_BEFORE=$(busy_jiffies)

# --- what it needs, from Debian -------------------------------------------------------------------
PACKAGES=(dbus dbus-bin xvfb dunst libnotify-bin hyperfine valgrind time gcc libc6-dev pkg-config
          libsystemd-dev libdbus-1-dev apt-file python3 coreutils file)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >"$OUT/apt.log" 2>&1
fi

# --- the desktop: bus, X server, notification daemon; all stopped however the script ends --------
DBUS_PID= XVFB_PID= DUNST_PID= MON_PID=
cleanup() {
    for pid in $MON_PID $DUNST_PID $XVFB_PID $DBUS_PID; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $MON_PID $DUNST_PID $XVFB_PID $DBUS_PID; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do
        [ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*" >&2; return 1; }
        sleep 0.05
    done
}
nonempty() { [ -s "$1" ]; }

dbus-daemon --session --address="unix:path=$OUT/bus" --nofork --nopidfile --print-address=3 \
    3>"$OUT/dbus.addr" 2>"$OUT/dbus.log" &
DBUS_PID=$!
wait_for 5 nonempty "$OUT/dbus.addr"
Xvfb -displayfd 3 -nolisten tcp 3>"$OUT/xdisplay" >"$OUT/xvfb.log" 2>&1 &
XVFB_PID=$!
wait_for 10 nonempty "$OUT/xdisplay"
export DISPLAY=":$(tr -dc 0-9 <"$OUT/xdisplay")" DBUS_SESSION_BUS_ADDRESS="unix:path=$OUT/bus"
dunst -config /etc/xdg/dunst/dunstrc >"$OUT/dunst.log" 2>&1 &
DUNST_PID=$!
has_notifier() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null | grep -q 'boolean true'
}
wait_for 10 has_notifier
SERVER_INFO=$(dbus-send --session --print-reply --dest=org.freedesktop.Notifications /org/freedesktop/Notifications \
    org.freedesktop.Notifications.GetServerInformation | awk '/string/ { gsub(/"/, "", $2); printf "%s ", $2 }')
close_all() { dunstctl close-all >/dev/null; }

# --- the programs ---------------------------------------------------------------------------------
SDBUS_FLAGS=$(pkg-config --cflags --libs libsystemd)
gcc -O2 -Wall -Wextra -o "$OUT/notify_sdbus" "$HERE/notify_sdbus.c" $SDBUS_FLAGS
gcc -O2 -Wall -Wextra -o "$OUT/id_latency" "$HERE/id_latency.c" $SDBUS_FLAGS
printf 'int main(void) { return 0; }\n' >"$OUT/empty.c"
gcc -O2 -o "$OUT/empty" "$OUT/empty.c"
SUMMARY="Time to study?" BODY="body"
NS_SEND=(notify-send --print-id --app-name=planner -- "$SUMMARY" "$BODY")
SD_SEND=("$OUT/notify_sdbus" --app-name=planner -- "$SUMMARY" "$BODY")
NS_WAIT=(notify-send --print-id --app-name=planner -A default=Open -A "start=Start studying"
         -A "snooze=Snooze 15 min" -- "$SUMMARY" "$BODY")
SD_WAIT=("$OUT/notify_sdbus" --wait --app-name=planner -- "$SUMMARY" "$BODY")
FLOOR=("$OUT/empty")
# One string each for hyperfine -N, which splits it like a shell would.
HF_NS="notify-send --print-id --app-name=planner -- 'Time to study?' body"
HF_SD="$OUT/notify_sdbus --app-name=planner -- 'Time to study?' body"
HF_FLOOR="$OUT/empty"
# Sanity: each prints an id, the two wait forms end on a close.
"${NS_SEND[@]}" | grep -qx '[0-9]*' && "${SD_SEND[@]}" | grep -qx '[0-9]*'
close_all

# --- 1. wall and CPU: hyperfine, rounds alternating the order; the daemons' CPU over each block ---
on_cpu_ns() {  # on-CPU ns of a process, all threads
    cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }'
}
server_ns() { echo "$(on_cpu_ns "$DBUS_PID") $(on_cpu_ns "$DUNST_PID") $(on_cpu_ns "$XVFB_PID")"; }
PER_ROUND=$((RUNS / ROUNDS))
printf 'name\tround\truns\tdbus_ns\tdunst_ns\txvfb_ns\n' >"$OUT/hf/server.tsv"
for ((r = 0; r < ROUNDS; r++)); do
    if ((r % 2 == 0)); then order=(notify-send sdbus floor); else order=(floor sdbus notify-send); fi
    for name in "${order[@]}"; do
        case $name in notify-send) cmd=$HF_NS ;; sdbus) cmd=$HF_SD ;; floor) cmd=$HF_FLOOR ;; esac
        read -r d0 n0 x0 <<<"$(server_ns)"
        hyperfine -N --style none --runs "$PER_ROUND" --warmup "$WARMUP" \
            --export-json "$OUT/hf/${name}_$r.json" -n "$name" "$cmd" >"$OUT/hf/${name}_$r.log" 2>&1
        read -r d1 n1 x1 <<<"$(server_ns)"
        printf '%s\t%d\t%d\t%d\t%d\t%d\n' "$name" "$r" $((PER_ROUND + WARMUP)) $((d1 - d0)) $((n1 - n0)) $((x1 - x0)) >>"$OUT/hf/server.tsv"
        close_all
    done
done

# --- 2. peak RSS ----------------------------------------------------------------------------------
printf 'name\tkib\n' >"$OUT/rss.tsv"
for ((i = 0; i < RSS_RUNS; i++)); do
    for name in notify-send sdbus floor; do
        case $name in notify-send) cmd=("${NS_SEND[@]}") ;; sdbus) cmd=("${SD_SEND[@]}") ;; floor) cmd=("${FLOOR[@]}") ;; esac
        /usr/bin/time -f %M -o "$OUT/rss.one" "${cmd[@]}" >/dev/null
        printf '%s\t%s\n' "$name" "$(tail -1 "$OUT/rss.one")" >>"$OUT/rss.tsv"
    done
done
close_all

# --- 3. instructions: callgrind, one run each (all threads) ---------------------------------------
for name in notify-send sdbus floor; do
    case $name in notify-send) cmd=("${NS_SEND[@]}") ;; sdbus) cmd=("${SD_SEND[@]}") ;; floor) cmd=("${FLOOR[@]}") ;; esac
    valgrind --tool=callgrind --callgrind-out-file="$OUT/cg/$name.out" "${cmd[@]}" >/dev/null 2>"$OUT/cg/$name.log"
    callgrind_annotate --inclusive=yes "$OUT/cg/$name.out" >"$OUT/cg/$name.txt" 2>/dev/null
done
close_all

# --- 4. D-Bus method calls each form makes (dbus-monitor on the private bus) ----------------------
printf 'form\tcalls\tmembers\n' >"$OUT/msgs.tsv"
monitor_form() {  # monitor_form NAME WAITS(0|1) COMMAND...
    local name=$1 waits=$2; shift 2
    local log="$OUT/mon_$name.txt"
    dbus-monitor --session >"$log" 2>&1 &
    MON_PID=$!
    wait_for 5 grep -qs 'member=NameLost' "$log"  # it has become a monitor
    if [ "$waits" = 1 ]; then
        "$@" >/dev/null &
        local pid=$!
        wait_for 5 grep -qs 'member=Notify$' "$log"
        sleep 0.2
        close_all
        wait "$pid"
    else
        "$@" >/dev/null
    fi
    sleep 0.2
    kill -TERM "$MON_PID"; wait "$MON_PID" 2>/dev/null || true; MON_PID=
    local client
    client=$(awk '/^method call .*member=Hello$/ { for (i = 1; i <= NF; i++) if ($i ~ /^sender=/) { sub("sender=", "", $i); print $i; exit } }' "$log")
    awk -v c="sender=$client" -v name="$name" '
        /^method call / { for (i = 1; i <= NF; i++) if ($i == c) { n++; m = $NF; sub("member=", "", m); members = members (members ? "," : "") m } }
        END { printf "%s\t%d\t%s\n", name, n, members }' "$log" >>"$OUT/msgs.tsv"
}
monitor_form notify-send 0 "${NS_SEND[@]}"
monitor_form sdbus 0 "${SD_SEND[@]}"
monitor_form notify-send-wait 1 "${NS_WAIT[@]}"
monitor_form sdbus-wait 1 "${SD_WAIT[@]}"
close_all

# --- 5. from spawn to the id read from the notifier's stdout --------------------------------------
"$OUT/id_latency" "$LAT_RUNS" "$OUT/lat_send.tsv" notify-send "${NS_SEND[@]}" :: sdbus "${SD_SEND[@]}"
close_all
# notify-send 0.8.1 prints the id with printf and no fflush, then waits: on a pipe the id stays in its
# stdio buffer until it exits. Shown once here; the latency runs give it a line buffer (stdbuf -oL).
"${NS_WAIT[@]}" >"$OUT/pipe_wait.txt" &
ns_pid=$!
shown() { dunstctl count displayed | grep -q '^[1-9]'; }
wait_for 5 shown  # dunst shows it
sleep 0.3
PIPE_WHILE_WAITING=$(stat -c %s "$OUT/pipe_wait.txt")
close_all
wait "$ns_pid"
PIPE_AFTER_EXIT=$(tr '\n' ' ' <"$OUT/pipe_wait.txt")
"$OUT/id_latency" --close "$WAIT_RUNS" "$OUT/lat_wait.tsv" \
    "notify-send(stdbuf -oL)" stdbuf -oL "${NS_WAIT[@]}" :: "sdbus --wait" "${SD_WAIT[@]}"
close_all
# The C program's own view: microseconds from main() to the bus opened and to the id.
for ((i = 0; i < 20; i++)); do "$OUT/notify_sdbus" --timing --app-name=planner -- "$SUMMARY" "$BODY" 2>>"$OUT/sdbus_timing.txt" >/dev/null; done
close_all

# --- 6. static archives: could a -static-executable link sd-bus or libdbus? -----------------------
{
    echo "dpkg -L libsystemd-dev libsystemd0 | grep '\\.a\$':"
    dpkg -L libsystemd-dev libsystemd0 | grep '\.a$' || echo "  (none)"
    echo "dpkg -L libdbus-1-dev | grep '\\.a\$':"
    dpkg -L libdbus-1-dev | grep '\.a$' || echo "  (none)"
    apt-file update >/dev/null 2>&1 || echo "(apt-file update failed)"
    echo "apt-file search -x '/libsystemd[^/]*\\.a\$' (every Debian 12 package in the configured archive):"
    apt-file search -x '/libsystemd[^/]*\.a$' || echo "  (no package)"
    echo "apt-file search -x '/libdbus-1\\.a\$':"
    apt-file search -x '/libdbus-1\.a$' || echo "  (no package)"
    echo "grep Libs.private dbus-1.pc: $(grep '^Libs.private' "$(pkg-config --variable=pcfiledir dbus-1)/dbus-1.pc")"
    echo
    echo "\$ gcc -O2 -static notify_sdbus.c \$(pkg-config --cflags --libs libsystemd)"
    if gcc -O2 -static -o "$OUT/notify_sdbus_static" "$HERE/notify_sdbus.c" $SDBUS_FLAGS >"$OUT/sdbus_static.log" 2>&1; then
        echo "linked"
    else
        grep -E 'cannot find|undefined reference|error:' "$OUT/sdbus_static.log" | head -3; echo "=> link failed"
    fi
    cat >"$OUT/dbus_hello.c" <<'EOF'
#include <dbus/dbus.h>
#include <stdio.h>
int main(void) {
    DBusError e;
    dbus_error_init(&e);
    DBusConnection *c = dbus_bus_get(DBUS_BUS_SESSION, &e);
    if (!c) { fprintf(stderr, "%s\n", e.message); return 1; }
    printf("connected as %s\n", dbus_bus_get_unique_name(c));
    return 0;
}
EOF
    cat >"$OUT/sd_stubs.c" <<'EOF'
/* libdbus-1.a calls these only for systemd socket activation of a bus daemon (_dbus_listen_systemd_sockets). */
int sd_listen_fds(int unset_environment) { (void)unset_environment; return 0; }
int sd_is_socket(int fd, int family, int type, int listening) { (void)fd; (void)family; (void)type; (void)listening; return 0; }
EOF
    echo
    echo "\$ gcc -O2 -static dbus_hello.c \$(pkg-config --cflags dbus-1) -ldbus-1   # a minimal libdbus client"
    if gcc -O2 -static -o "$OUT/dbus_hello_static" "$OUT/dbus_hello.c" $(pkg-config --cflags dbus-1) -ldbus-1 \
        >"$OUT/dbus_static_nostub.log" 2>&1; then
        echo "linked"
    else
        grep -E 'in function|undefined reference|cannot find|error:' "$OUT/dbus_static_nostub.log" | grep -v 'warning' \
            | grep -B1 -E 'undefined reference|cannot find|error:' | sed 's/^.*libdbus-1\.a(/libdbus-1.a(/' | head -5
        echo "=> link failed"
    fi
    echo "\$ gcc -O2 -static dbus_hello.c sd_stubs.c \$(pkg-config --cflags dbus-1) -ldbus-1   # with stubs for sd_listen_fds, sd_is_socket"
    gcc -O2 -static -o "$OUT/dbus_hello_static" "$OUT/dbus_hello.c" "$OUT/sd_stubs.c" $(pkg-config --cflags dbus-1) -ldbus-1 \
        2>"$OUT/dbus_static.log" && echo "linked: $(file -b "$OUT/dbus_hello_static" | cut -d, -f1-2,4); $(grep -c 'warning: Using' "$OUT/dbus_static.log") glibc warnings (getpwnam/getaddrinfo etc. need glibc's shared NSS modules at run time)" \
        && echo "run on the private bus: $("$OUT/dbus_hello_static" 2>&1)" || echo "=> link failed"
} >"$OUT/static.txt" 2>&1

# --- versions and the report ----------------------------------------------------------------------
# Was the machine shared during the run? All CPU time spent on it vs. this script's reaped children.
BUSY_S=$(awk -v a="$BUSY_BEFORE" -v b="$(busy_jiffies)" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (b - a) / hz }')
times >"$OUT/times.txt"  # not in a pipe: a subshell would report no children
OWN_S=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } printf "%.1f", n }' "$OUT/times.txt")
DAEMONS_S=$(awk -v n="$(($(on_cpu_ns "$DBUS_PID") + $(on_cpu_ns "$DUNST_PID") + $(on_cpu_ns "$XVFB_PID")))" 'BEGIN { printf "%.1f", n / 1e9 }')
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }
{
    echo "command=$COMMAND_LINE"
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "elapsed_s=$(($(date +%s) - START_EPOCH))"
    echo "machine=$(uname -srm); $(lscpu | sed -n 's/^Model name: *//p' | head -1); $(nproc) CPUs; $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "load=before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "busy=$BUSY_S CPU-s busy on the whole machine during the run, $OWN_S CPU-s of it in this script's finished child processes and $DAEMONS_S in its dbus-daemon, dunst and Xvfb; $(nproc) CPUs x $(($(date +%s) - START_EPOCH)) s available"
    echo "repo=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "versions=libnotify-bin $(ver libnotify-bin), libglib2.0-0 $(ver libglib2.0-0), libsystemd0 $(ver libsystemd0) (sd-bus), dunst $(ver dunst), dbus-daemon $(ver dbus-daemon)$( [ "$(ver dbus-daemon)" = "?" ] && echo " / dbus $(ver dbus)"), xvfb $(ver xvfb), libc6 $(ver libc6), $(gcc --version | head -1), hyperfine $(ver hyperfine), valgrind $(ver valgrind), time $(ver time)"
    echo "server=$SERVER_INFO"
    echo "display=$DISPLAY"
    echo "pipe_while_waiting=$PIPE_WHILE_WAITING"
    echo "pipe_after_exit=$PIPE_AFTER_EXIT"
    echo "rounds=$ROUNDS"
    echo "out=$OUT"
} >"$OUT/meta.txt"
python3 "$HERE/notify_report.py" "$OUT" "$RESULTS"
echo "wrote $RESULTS (scratch files in $OUT)" >&2
