#!/usr/bin/env bash
# Instructions (callgrind, one run each, the folder child included: callgrind counts a forked child from the
# parent's count at the fork, so the sum repeats the parent's work up to each fork — comparable between two
# binaries, not an absolute figure; bench/budget_check.sh counts the command's own process) of `open` and `refill` with a calendar
# folder of 14 days whose files were all touched since written (copied: every file read back), for the
# release binary and, side by side, BASELINE. Prints a Markdown table.
#
#   BASELINE=/path/to/old/planner bench/calendar_instructions.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLANNER=${PLANNER:-$ROOT/.build/release/planner}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export TZ=Asia/Seoul
count() {  # BINARY COMMAND
    local dir=$W/$(basename "$(dirname "$(dirname "$(dirname "$1")")")")-$2
    mkdir -p "$dir/cal"
    "$1" config set calendar-folder "$dir/cal" --db "$dir/t.db" --now 2026-11-23T08:00 >/dev/null 2>&1
    "$1" list --db "$dir/t.db" >/dev/null
    cp -r "$dir/cal" "$dir/work"
    sqlite3 "$dir/t.db" "UPDATE setting SET value = '$dir/work' WHERE key = 'calendar-folder'"
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$dir/log" "$1" "$2" --db "$dir/t.db" --now 2026-11-23T12:00 >/dev/null 2>&1
    awk '/refs:/ { gsub(",", "", $4); s += $4 } END { printf "%.1f", s / 1e6 }' "$dir/log"
}
echo "| command, calendar folder of 14 days | planner (M) | baseline (M) |"
echo "| --- | --: | --: |"
for c in open refill; do
    echo "| \`$c\` | $(count "$PLANNER" $c) | $([ -n "${BASELINE:-}" ] && count "$BASELINE" $c) |"
done
