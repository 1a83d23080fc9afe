#!/usr/bin/env bash
# What a pass costs when nothing changed, against the same pass with no folder, what a first sync of 10,000
# events of another device and what a title change in a calendar folder cost (issue 48): instructions of every
# process a command makes (callgrind; fixed clock, zone and environment). A forked child is counted from the
# parent's total at the fork, so a plain sum would count the parent twice: each command is run twice, once for
# the parent alone (`--child-silent-after-fork`) and once for the folder children's own work alone (collection
# on inside `FolderChild.child` only), and the two are added. Prints a Markdown table, with BASELINE's figures
# beside this tree's when it is set.
#
#   bench/change_costs.sh                                  # .build/release/planner
#   BASELINE=/path/to/old/planner bench/change_costs.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLANNER=$(realpath "${PLANNER:-$ROOT/.build/release/planner}")
command -v valgrind >/dev/null || { echo "change_costs: valgrind is missing: apt-get install valgrind" >&2; exit 1; }
W=$(mktemp -d /tmp/planner-costs.XXXXXX)
trap 'rm -rf "$W"' EXIT
run() { env -i PATH=/usr/bin:/bin HOME="$W" TZ=Asia/Seoul LANG=C.UTF-8 SWIFT_DETERMINISTIC_HASHING=1 PLANNER_FOLDER_DEADLINE_MS=60000 "$@"; }

# sum LOGS...: the instructions the callgrind logs say, added.
sum() { awk '/refs:/ { gsub(",", "", $4); s += $4 } END { print s + 0 }' "$@"; }

# count BINARY DIR ARGS...: the parent's and its children's own instructions (two runs from one saved state).
count() {
    local binary=$1 dir=$2; shift 2
    cp "$dir/state.db" "$dir/planner.db"
    rm -f "$dir"/vg.*
    run valgrind --tool=callgrind --callgrind-out-file=/dev/null --child-silent-after-fork=yes --log-file="$dir/vg.parent" \
        "$binary" "$@" --db "$dir/planner.db" >/dev/null 2>&1
    local parent children
    parent=$(sum "$dir/vg.parent")
    cp "$dir/state.db" "$dir/planner.db"
    run valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        '--toggle-collect=$s14PlannerFolders11FolderChildO5child*' --log-file="$dir/vg.child.%p" \
        "$binary" "$@" --db "$dir/planner.db" >/dev/null 2>&1
    children=$(sum "$dir"/vg.child.*)
    echo $((parent + children))
}

# prepare BINARY DIR DAYS: a plan made at 08:00 (a calendar folder of DAYS when DAYS > 0), ticked at 12:00 (the
# 12:00 slot shown, the folder written): the state a cron minute at 12:00 then finds, nothing changed since.
prepare() {
    local binary=$1 dir=$2 days=$3
    mkdir -p "$dir"
    if ((days > 0)); then
        mkdir -p "$dir/calendar"
        run "$binary" config set calendar-folder "$dir/calendar" calendar-days "$days" --db "$dir/planner.db" --now 2026-11-23T08:00 >/dev/null 2>&1
    else
        run "$binary" refill --db "$dir/planner.db" --now 2026-11-23T08:00 >/dev/null
    fi
    run "$binary" tick --once --sink stdout --db "$dir/planner.db" --now 2026-11-23T12:00 >/dev/null 2>&1
    run "$binary" list --db "$dir/planner.db" >/dev/null  # checkpointed
    cp "$dir/planner.db" "$dir/state.db"
}

# figures BINARY NAME: one line of counts per case, in millions.
figures() {
    local binary=$1 name=$2 days plain
    for days in 0 14 60; do
        prepare "$binary" "$W/$name-$days" "$days"
    done
    plain=$(count "$binary" "$W/$name-0" tick --once --sink stdout --now 2026-11-23T12:00)
    printf '%s' "$plain"
    for days in 14 60; do
        printf ' %s' "$(count "$binary" "$W/$name-$days" tick --once --sink stdout --now 2026-11-23T12:00)"
    done
    echo
}

# title BINARY NAME DAYS ZONE DATE: `config set title` at DATE's 12:00 in ZONE, with a calendar folder of DAYS
# written at 08:00 and ticked at 12:00, its writing child included. Europe/Berlin on 2027-03-10: the horizon
# crosses the 28 March change, after which every reminder is an item of its own (a series holds one offset).
title() {
    local binary=$1 dir=$W/$2-title-$3-${4//\//-} days=$3 zone=$4 date=$5
    mkdir -p "$dir/calendar"
    run "$binary" config set zone "$zone" calendar-folder "$dir/calendar" calendar-days "$days" --db "$dir/planner.db" \
        --now "${date}T08:00" >/dev/null 2>&1
    run "$binary" tick --once --sink stdout --db "$dir/planner.db" --now "${date}T12:00" >/dev/null 2>&1
    run "$binary" list --db "$dir/planner.db" >/dev/null
    cp "$dir/planner.db" "$dir/state.db"
    count "$binary" "$dir" config set title Hello --now "${date}T12:00"
}

# titles BINARY NAME: the title change's cases, on one line.
titles() {
    echo "$(title "$1" "$2" 14 Asia/Seoul 2026-11-23) $(title "$1" "$2" 60 Asia/Seoul 2026-11-23)" \
        "$(title "$1" "$2" 60 Europe/Berlin 2027-03-10)"
}

# first_sync BINARY NAME: `sync` applying 10,000 events another device wrote (bench/sync_bench.py's lines:
# opens, skips and their removal, pauses, settings), its children included.
first_sync() {
    local binary=$1 dir=$W/$2-sync
    mkdir -p "$dir/shared"
    run "$binary" config set days daily sync-folder "$dir/shared" --db "$dir/planner.db" --now 2026-11-23T08:00 >/dev/null
    run "$binary" sync --db "$dir/planner.db" --now 2026-11-25T12:00 >/dev/null
    python3 - "$dir/shared" <<'PY'
import os, random, sys
other = "%032x" % random.Random(1).getrandbits(128)
rng, base = random.Random(2), 1_795_000_000_000
lines = [f"planner-device 1 id={other} name=bench at={base}\n"]
for n in range(10_000):
    at = base + n * 60_000
    head = f"planner-event 2 id={n:032x} at={at} origin=bench device={other} stamp={at}.0"
    day, kind = 1 + rng.randrange(28), rng.randrange(5)
    if kind == 0: lines.append(f"{head.replace('origin=bench', 'origin=open')} kind=open zone=Asia/Seoul offset=32400\n")
    elif kind == 1: lines.append(f"{head.replace('origin=bench', 'origin=skip')} kind=skip dates=2026-12-{day:02d}\n")
    elif kind == 2: lines.append(f"{head.replace('origin=bench', 'origin=skip')} kind=unskip dates=2026-12-{day:02d}\n")
    elif kind == 3: lines.append(f"{head.replace('origin=bench', 'origin=pause')} kind=pause until={at + 3_600_000}\n")
    else: lines.append(f"{head.replace('origin=bench', 'origin=config')} kind=settings set.title=Title%20{n}\n")
open(os.path.join(sys.argv[1], f"planner-{other}-000001.events"), "w").writelines(lines)
PY
    run "$binary" list --db "$dir/planner.db" >/dev/null
    cp "$dir/planner.db" "$dir/state.db"
    local shared
    shared=$(count "$binary" "$dir" sync --now 2026-11-25T12:00)
    [[ $(sqlite3 "$dir/planner.db" "SELECT count(*) FROM event WHERE received_ms IS NOT NULL") == 10000 ]] \
        || { echo "change_costs: the sync did not apply the 10,000 events" >&2; exit 1; }
    echo "$shared"
}

read -r p0 p14 p60 < <(figures "$PLANNER" this)
s10k=$(first_sync "$PLANNER" this)
read -r t14 t60 t60b < <(titles "$PLANNER" this)
if [[ -n ${BASELINE:-} ]]; then
    read -r b0 b14 b60 < <(figures "$(realpath "$BASELINE")" base)
    b10k=$(first_sync "$(realpath "$BASELINE")" base)
    read -r bt14 bt60 bt60b < <(titles "$(realpath "$BASELINE")" base)
fi
m() { awk -v n="$1" 'BEGIN { printf "%.2f M", n / 1e6 }'; }
r() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.3f×", n / d }'; }
echo "| \`tick --once\` at 12:00, nothing changed since the last pass (all processes) | this tree | | baseline | |"
echo "| --- | --: | --: | --: | --: |"
echo "| no calendar folder | $(m "$p0") | 1.00× | ${b0:+$(m "$b0")} | ${b0:+1.00×} |"
echo "| calendar folder, 14 days | $(m "$p14") | $(r "$p14" "$p0") | ${b14:+$(m "$b14")} | ${b14:+$(r "$b14" "$b0")} |"
echo "| calendar folder, 60 days | $(m "$p60") | $(r "$p60" "$p0") | ${b60:+$(m "$b60")} | ${b60:+$(r "$b60" "$b0")} |"
echo
echo "| \`sync\` applying 10,000 events of another device (all processes) | this tree | baseline |"
echo "| --- | --: | --: |"
echo "| instructions | $(m "$s10k") | ${b10k:+$(m "$b10k")} |"
echo
echo "| \`config set title\` at 12:00 (all processes) | this tree | baseline |"
echo "| --- | --: | --: |"
echo "| Asia/Seoul, 14 days | $(m "$t14") | ${bt14:+$(m "$bt14")} |"
echo "| Asia/Seoul, 60 days | $(m "$t60") | ${bt60:+$(m "$bt60")} |"
echo "| Europe/Berlin, 60 days from 10 March (a change within) | $(m "$t60b") | ${bt60b:+$(m "$bt60b")} |"
