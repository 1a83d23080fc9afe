#!/usr/bin/env bash
# Does a command's cost grow with what the plan has seen (issue 31: "nothing grows with the number of devices
# (10 devices x a year of events) or with calendar-days 60")? Instructions under callgrind (the same on a busy
# machine), side by side, for `open`, `status`, `refill` and `sync` (nothing new) on:
#
#   sync        a sync folder this device published to, no other device       (the budget check's `sync`)
#   devices10   the same after a year of 10 other devices' events applied: each 250 opens and 2,250 settings
#               changes (25,000 events, 2,500 opens), all in the folder
#   calendar14  a calendar folder of 14 days written                          (the budget check's `calendar`)
#   calendar60  the same with calendar-days 60
#
#   PLANNER=.build/release/planner bench/growth_check.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLANNER=$(realpath "${PLANNER:-$ROOT/.build/release/planner}")
W=$(mktemp -d /tmp/planner-growth.XXXXXX)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$W"' EXIT   # KEEP=1: the templates stay, for a profile
NOW=2026-11-23T12:00
run() { env -i PATH=/usr/bin:/bin HOME="$W/home" TZ=Asia/Seoul LANG=C.UTF-8 SWIFT_DETERMINISTIC_HASHING=1 "$@"; }
p() { run "$PLANNER" "$@" >/dev/null; }
mkdir -p "$W/home"

for t in sync devices10 calendar14 calendar60; do mkdir -p "$W/$t/folder"; p refill --db "$W/$t/planner.db" --now 2026-11-23T08:00; done
for t in sync devices10; do
    p config set device-name laptop sync-folder "$W/$t/folder" --db "$W/$t/planner.db" --now 2026-11-23T08:00
done
# Ten devices' year, written as planners write their files (bench/history_bench.py's year, ending a month ago).
python3 - "$W/devices10/folder" <<'EOF'
import random, sys
folder = sys.argv[1]
base = 1_764_000_000_000  # 2025-11-24
for d in range(10):
    device = "%032x" % random.Random(100 + d).getrandbits(128)
    lines = [f"planner-device 1 id={device} name=d{d} at={base}\n"]
    for n in range(250):
        at = base + n * 86_400_000 + d * 60_000
        lines.append(f"planner-event 2 id={(d << 64) + n:032x} at={at} origin=open device={device} stamp={at}.0 kind=open zone=Asia/Seoul offset=32400\n")
    for n in range(2_250):
        at = base + n * 13_000_000 + d
        lines.append(f"planner-event 2 id={(d << 64) + 1000 + n:032x} at={at} origin=config device={device} stamp={at}.0 kind=settings set.title=T{n}\n")
    with open(f"{folder}/planner-{device}-000001.events", "w") as f:
        f.writelines(lines)
EOF
for t in sync devices10; do p sync --db "$W/$t/planner.db" --now 2026-11-23T08:00; done
applied=$(sqlite3 "$W/devices10/planner.db" "SELECT count(*) FROM event")
p config set calendar-folder "$W/calendar14/folder" --db "$W/calendar14/planner.db" --now 2026-11-23T08:00
p config set calendar-folder "$W/calendar60/folder" calendar-days 60 --db "$W/calendar60/planner.db" --now 2026-11-23T08:00
for t in sync devices10 calendar14 calendar60; do
    p refill --db "$W/$t/planner.db" --now 2026-11-23T08:00
    p list --db "$W/$t/planner.db"
    cp -a "$W/$t" "$W/$t.template"
done

count() {
    local template=$1; shift
    rm -rf "${W:?}/$template" && cp -a "$W/$template.template" "$W/$template"
    # A copied calendar folder has new inodes and ctimes, which its recorded listing digests (calendar_pass)
    # include: a pass at the template's own time (not counted) records it again, as the planner's own last
    # pass had, so the count is of a folder untouched since then.
    [[ $template == calendar* ]] && p refill --db "$W/$template/planner.db" --now 2026-11-23T08:00
    run valgrind --tool=callgrind --callgrind-out-file=/dev/null --child-silent-after-fork=yes --log-file="$W/vg" \
        "$PLANNER" "$@" --db "$W/$template/planner.db" --now "$NOW" >/dev/null 2>&1
    awk '/refs:/ { gsub(",", "", $4); print $4 }' "$W/vg"
}

echo "events in devices10's database: $applied"
printf '%-8s %12s %12s %7s   %12s %12s %7s\n' command sync devices10 ratio calendar14 calendar60 ratio
[[ -n ${KEEP:-} ]] && echo "templates kept in $W"
for cmd in open status refill sync; do
    a=$(count sync "$cmd"); b=$(count devices10 "$cmd")
    c=$(count calendar14 "$cmd"); d=$(count calendar60 "$cmd")
    printf '%-8s %12d %12d %7.3f   %12d %12d %7.3f\n' "$cmd" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{print b/a}')" \
        "$c" "$d" "$(awk -v a="$c" -v b="$d" 'BEGIN{print b/a}')"
done
