#!/usr/bin/env bash
# The instruction budget of every command (issue 31): each scenario of bench/budgets.txt run once under
# `valgrind --tool=callgrind` (instructions, not time: the same on a busy machine), compared with its budget.
# Fails, printing the scenario, its command, the budget and the count, when a count is over its budget by more
# than MARGIN_PERCENT (default 5: a refactor's noise and other CPUs' memcpy variants stay under it; a needless
# query in `open` does not, bench/budget_guard_check.sh). A change that needs more runs --rewrite and says why
# in its commit message. `.ci/run` runs this on the release build.
#
#   bench/budget_check.sh                  # check (builds the release binary first)
#   PLANNER=path/to/planner bench/budget_check.sh
#   bench/budget_check.sh --print          # the counts only, never fails
#   bench/budget_check.sh --rewrite        # every budget set to this tree's count (rounded up to 10,000)
#   SCENARIOS="open status" bench/budget_check.sh   # only these scenarios of bench/budgets.txt
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUDGETS=$ROOT/bench/budgets.txt
MARGIN_PERCENT=${MARGIN_PERCENT:-5}
mode=${1:-check}
if ! command -v valgrind >/dev/null; then
    [[ $(id -u) -eq 0 ]] || { echo "budget_check: valgrind is missing: apt-get install valgrind" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
if [[ -z ${PLANNER:-} ]]; then
    (cd "$ROOT" && swift build -c release --static-swift-stdlib >/dev/null)
    PLANNER=$ROOT/.build/release/planner
fi
PLANNER=$(realpath "$PLANNER")

# A path of the same length on every machine, a fixed clock, zone and environment, deterministic hashing:
# the counts then depend on the binary alone.
W=$(mktemp -d /tmp/planner-budget.XXXXXX)
trap 'rm -rf "$W"' EXIT
NOW=2026-11-23T12:00
# The folder child's deadline high: under valgrind a slow child can miss the usual 600 ms, and the count would
# then silently measure the give-up path.
run() { env -i PATH=/usr/bin:/bin HOME="$W/home" TZ=Asia/Seoul LANG=C.UTF-8 SWIFT_DETERMINISTIC_HASHING=1 PLANNER_FOLDER_DEADLINE_MS=60000 "$@"; }
p() { run "$PLANNER" "$@" >/dev/null; }
mkdir -p "$W/home"

# Templates, each a database (and its folders) restored before every run: `plain` 64 pending; `sync` the same
# with a sync folder it published to; `sync100` that, with another device's 100 skips in the folder, unread;
# `calendar` the same with a calendar folder of 14 days written.
make_templates() {
    local t
    mkdir -p "$W/sync/folder" "$W/sync100/folder" "$W/calendar/folder" "$W/calendar60/folder"
    for t in plain sync sync100 calendar calendar60; do p refill --db "$W/$t/planner.db" --now 2026-11-23T08:00; done
    p config set device-name laptop sync-folder "$W/sync/folder" --db "$W/sync/planner.db" --now 2026-11-23T08:00
    p sync --db "$W/sync/planner.db" --now 2026-11-23T08:00
    # Device ids are random, and which of the two sorts first changes the work (2.5 %): the desktop is made
    # again until the laptop's sorts first, so every run measures the same case.
    p config set device-name laptop sync-folder "$W/sync100/folder" --db "$W/sync100/planner.db" --now 2026-11-23T08:00
    p sync --db "$W/sync100/planner.db" --now 2026-11-23T08:00
    local laptop desktop
    laptop=$(sqlite3 "$W/sync100/planner.db" "SELECT id FROM device WHERE is_self = 1")
    while :; do
        rm -f "$W"/desktop.db*
        p refill --db "$W/desktop.db" --now 2026-11-23T08:00
        p config set device-name desktop --db "$W/desktop.db" --now 2026-11-23T08:00
        mkdir -p "$W/sync100/folder.desktop"
        p config set sync-folder "$W/sync100/folder.desktop" --db "$W/desktop.db" --now 2026-11-23T08:00
        p sync --db "$W/desktop.db" --now 2026-11-23T08:00
        desktop=$(sqlite3 "$W/desktop.db" "SELECT id FROM device WHERE is_self = 1")
        rm -rf "$W/sync100/folder.desktop"
        [[ $laptop < $desktop ]] && break
    done
    p config set sync-folder "$W/sync100/folder" --db "$W/desktop.db" --now 2026-11-23T08:00
    local day
    for day in $(seq 0 99); do
        p skip "$(date -u -d "2027-01-01 + $day days" +%F)" --db "$W/desktop.db" --now 2026-11-23T08:00
    done
    p sync --db "$W/desktop.db" --now 2026-11-23T08:00
    p config set calendar-folder "$W/calendar/folder" --db "$W/calendar/planner.db" --now 2026-11-23T08:00
    p sync --db "$W/calendar/planner.db" --now 2026-11-23T08:00
    p config set calendar-folder "$W/calendar60/folder" calendar-days 60 --db "$W/calendar60/planner.db" --now 2026-11-23T08:00
    # `sync10k`: another device's file of 10,000 events (opens, skips and their removal, pauses, settings:
    # bench/change_costs.sh's first sync), unread.
    mkdir -p "$W/sync10k/folder"
    p config set days daily sync-folder "$W/sync10k/folder" --db "$W/sync10k/planner.db" --now 2026-11-23T08:00
    p sync --db "$W/sync10k/planner.db" --now 2026-11-23T08:00
    python3 - "$W/sync10k/folder" <<'PY'
import os, random, sys
other = "%032x" % random.Random(1).getrandbits(128)
rng, base = random.Random(2), 1_794_799_200_000  # a minute apart, the last an hour before $NOW
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
    # `anki5y`: a collection of five years of daily study set and not read yet (its first read is counted).
    # Only the tables and columns the planner reads, made with SQLite (Anki's own backend is not needed to
    # count instructions; the tests read collections Anki made).
    mkdir -p "$W/anki5y"
    p refill --db "$W/anki5y/planner.db" --now 2026-11-23T08:00
    python3 - "$W/anki5y/collection.anki2" <<'PY'
import random, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("CREATE TABLE col (id INTEGER PRIMARY KEY, crt INTEGER, mod INTEGER, scm INTEGER, ver INTEGER, ls INTEGER)")
con.execute("INSERT INTO col VALUES (1, 0, 0, 0, 18, 0)")
con.execute("CREATE TABLE revlog (id INTEGER PRIMARY KEY, cid INTEGER, usn INTEGER, ease INTEGER, ivl INTEGER, "
            "lastIvl INTEGER, factor INTEGER, time INTEGER, type INTEGER)")
midnight, rng, rows = 1_795_402_800_000 - 12 * 3_600_000, random.Random(48), []
for d in range(1825, 0, -1):
    t = midnight - d * 86_400_000 + rng.randrange(8 * 3_600_000, 22 * 3_600_000)
    rows += [(t + k * 7_000, 1, -1, 3, 1, 1, 2500, 6000, 1) for k in range(20)]
con.executemany("INSERT INTO revlog VALUES (?,?,?,?,?,?,?,?,?)", rows)
con.commit()
con.close()
PY
    p config set anki-collection "$W/anki5y/collection.anki2" days daily --db "$W/anki5y/planner.db" --now 2026-11-23T08:00
    for t in plain sync sync100 calendar calendar60 anki5y sync10k; do
        p list --db "$W/$t/planner.db"   # checkpointed and closed
        cp -a "$W/$t" "$W/$t.template"
    done
}

# scenario -> template and arguments (the database and --now are added).
scenario() {
    case $1 in
        open) echo "plain open" ;;
        open-login) echo "plain open --login" ;;
        study) echo "plain study" ;;
        status) echo "plain status" ;;
        list) echo "plain list" ;;
        refill) echo "plain refill" ;;
        tick-once) echo "plain tick --once --sink stdout" ;;
        add) echo "plain add --in 2h --title x" ;;
        config-set) echo "plain config set title Hello" ;;
        open-sync) echo "sync open" ;;
        status-sync) echo "sync status" ;;
        refill-sync) echo "sync refill" ;;
        sync-100) echo "sync100 sync" ;;
        open-calendar) echo "calendar open" ;;
        open-sync-ticker) echo "sync+sign open" ;;
        open-calendar-ticker) echo "calendar+sign open" ;;
        status-calendar) echo "calendar status" ;;
        refill-calendar) echo "calendar refill" ;;
        tick-once-primed) echo "plain+primed+children tick --once --sink stdout" ;;
        tick-once-calendar60) echo "calendar60+primed+children tick --once --sink stdout" ;;
        refill-anki-first) echo "anki5y+children refill" ;;
        config-set-calendar60) echo "calendar60+children config set title Hello" ;;
        sync-10k) echo "sync10k+children sync" ;;
        *) return 1 ;;
    esac
}

# `open --login` reads its ancestors in /proc up to pid 1: how many depends on what started this script. In a
# PID namespace of its own (root, or unprivileged user namespaces) it has none, the same everywhere.
alone=()
if unshare --pid --fork --mount-proc true 2>/dev/null; then alone=(unshare --pid --fork --mount-proc); fi

# restore TEMPLATE PRIMED ARGS...: the template's database and folders as a fresh copy; PRIMED=1: the command
# run once at $NOW first, uncounted, so that the count is of a pass with nothing changed since the last.
restore() {
    local template=$1 primed=$2; shift 2
    rm -rf "${W:?}/$template" && cp -a "$W/$template.template" "$W/$template"
    # A copied calendar folder has new inodes and ctimes, which its recorded listing digests (calendar_pass)
    # include: a pass at the template's own time (not counted) records it again, as the planner's own last
    # pass had, so the count is of a folder untouched since then.
    [[ $template == calendar* ]] && p refill --db "$W/$template/planner.db" --now 2026-11-23T08:00
    ((primed)) && run "$PLANNER" "$@" --db "$W/$template/planner.db" --now "$NOW" >/dev/null 2>&1
    return 0
}

# count TEMPLATE ARGS...: instructions of one run of the command's own process. Its forked folder children are
# left out (`--child-silent-after-fork`): callgrind counts a child from the parent's total at the fork, so a sum
# would count the parent twice.
# A template named T+sign: T, with a live ticker's sign held on its lock file (TickerLock.advertise, by a
# stand-in that takes the same lock), so `open` leaves the folders to the ticker. T+primed: the command run
# once before, uncounted (`restore`). T+children: the folder children's own instructions added, counted in a
# second run from the same state with collection on only inside the child's function (`FolderChild.child`).
count() {
    local template=$1 sign=0 primed=0 children=0; shift
    [[ $template == *+children ]] && { template=${template%+children}; children=1; }
    [[ $template == *+primed ]] && { template=${template%+primed}; primed=1; }
    [[ $template == *+sign ]] && { template=${template%+sign}; sign=1; }
    restore "$template" "$primed" "$@"
    local prefix=() holder=""
    [[ $1 == open && ${2:-} == --login ]] && prefix=("${alone[@]}")
    if ((sign)); then
        rm -f "$W/held"
        python3 -c 'import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 1, 0))
open(sys.argv[2], "w").close()
time.sleep(600)' "$W/$template/planner.db.tick.lock" "$W/held" >/dev/null 2>&1 &
        holder=$!
        while [[ ! -e $W/held ]]; do sleep 0.01; done
    fi
    run "${prefix[@]}" valgrind --tool=callgrind --callgrind-out-file=/dev/null --child-silent-after-fork=yes --log-file="$W/vg" \
        "$PLANNER" "$@" --db "$W/$template/planner.db" --now "$NOW" >/dev/null 2>"$W/stderr" \
        || { echo "budget_check: $* failed: $(cat "$W/stderr")" >&2; [[ -n $holder ]] && kill "$holder"; return 1; }
    if [[ -n $holder ]]; then kill "$holder"; wait "$holder" 2>/dev/null || true; fi
    local own
    own=$(awk '/refs:/ { gsub(",", "", $4); print $4 }' "$W/vg")
    if ((children)); then
        restore "$template" "$primed" "$@"
        rm -f "$W"/vgc.*
        run valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
            '--toggle-collect=$s14PlannerFolders11FolderChildO5child*' --log-file="$W/vgc.%p" \
            "$PLANNER" "$@" --db "$W/$template/planner.db" --now "$NOW" >/dev/null 2>&1
        local theirs
        theirs=$(awk '/refs:/ { gsub(",", "", $4); s += $4 } END { print s + 0 }' "$W"/vgc.*)
        # A scenario with a folder makes a child: none counted means the function's name changed (the count
        # would silently leave them out).
        if [[ $template != plain && $theirs -eq 0 ]]; then
            echo "budget_check: no folder child counted for $*: was FolderChild.child renamed? (bench/budget_check.sh's --toggle-collect)" >&2
            return 1
        fi
        own=$((own + theirs))
    fi
    echo "$own"
}

make_templates
failed=0
rewritten=()
printf '%-20s %-34s %12s %12s %8s\n' scenario command budget count ratio
while read -r name budget _; do
    [[ -z $name || $name == \#* ]] && continue
    [[ -n ${SCENARIOS:-} && " $SCENARIOS " != *" $name "* ]] && continue
    read -r template args < <(scenario "$name") || { echo "budget_check: unknown scenario $name in $BUDGETS" >&2; exit 1; }
    if [[ $name == open-login && ${#alone[@]} -eq 0 ]]; then
        printf '%-20s %-34s %12d %12s\n' "$name" "planner $args" "$budget" "skipped (no PID namespace here: its count would depend on the process tree)"
        continue
    fi
    # shellcheck disable=SC2086
    n=$(count "$template" $args)
    ratio=$(awk -v n="$n" -v b="$budget" 'BEGIN { printf "%.3f", n / b }')
    verdict=""
    [[ $mode == --rewrite ]] && rewritten+=("$name $(( (n + 9999) / 10000 * 10000 ))")
    if [[ $mode == check ]] && awk -v n="$n" -v b="$budget" -v m="$MARGIN_PERCENT" 'BEGIN { exit !(n > b * (1 + m / 100)) }'; then
        verdict="  OVER BUDGET"; failed=1
    fi
    printf '%-20s %-34s %12d %12d %8s%s\n' "$name" "planner $args" "$budget" "$n" "$ratio" "$verdict"
done <"$BUDGETS"
if [[ $mode == --rewrite ]]; then
    # Each scenario's line gets its new budget; comments and order stay.
    for pair in "${rewritten[@]}"; do
        read -r name budget <<<"$pair"
        sed -i -E "s/^($name +)[0-9]+/\1$budget/" "$BUDGETS"
    done
    echo "budget_check: ${#rewritten[@]} budgets in bench/budgets.txt set to this tree's counts"
    exit 0
fi
if ((failed)); then
    echo "budget_check: a command is over its instruction budget by more than ${MARGIN_PERCENT} % (above); make it cheaper, or run bench/budget_check.sh --rewrite and say why in the commit" >&2
    exit 1
fi
echo "budget_check: every command within its budget (+${MARGIN_PERCENT} %)"
