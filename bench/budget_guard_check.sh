#!/usr/bin/env bash
# Shows, on every CI run, that the instruction budget guard (bench/budget_check.sh) fails a regression (issue
# 31): builds the release binary with one needless query in `open`'s transaction, put after the one line of the
# sources marked `// budget-guard:` (a marker, not a diff: a rename or a move elsewhere in the code leaves it
# working), and passes only when budget_check fails that binary for the commands that record an open and leaves a
# command it does not touch within its budget. The tree is put back on exit; the binary left in .build/release
# is then the regressed one, so `.ci/run` runs this last (the next `swift build` rebuilds it).
#
#   bench/budget_guard_check.sh
#   bench/budget_guard_check.sh --where     # only says which file holds the marker (fails when not exactly one)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MARKER='// budget-guard:'
mapfile -t marked < <(grep -rlF -- "$MARKER" Sources)
count=$(grep -rhF -- "$MARKER" Sources | wc -l || true)  # grep finding none is the case to explain below
if [[ ${#marked[@]} -ne 1 || $count -ne 1 ]]; then
    echo "budget_guard_check: expected one line marked '$MARKER' in Sources (inside open's transaction, where its Transaction 't' is in scope), found $count" >&2
    exit 1
fi
file=${marked[0]}
if [[ ${1:-} == --where ]]; then echo "$file"; exit 0; fi
# The marked file must be as committed: a change of its own would be mixed with the regression.
git diff --quiet -- "$file" || { echo "budget_guard_check: $file has uncommitted changes; commit or stash them first" >&2; exit 1; }
saved=$(mktemp)
cp "$file" "$saved"
# shellcheck disable=SC2064
trap "cp '$saved' '$file'; rm -f '$saved'" EXIT
awk -v marker="$MARKER" '{ print } index($0, marker) { match($0, /^ */); printf "%s_ = try t.connection.integer(\"SELECT count(*) FROM request_history\")  // DELIBERATE REGRESSION\n", substr($0, 1, RLENGTH) }' "$saved" >"$file"
swift build -c release --static-swift-stdlib >/dev/null
out=$(mktemp)
status=0
SCENARIOS="open study status" PLANNER=.build/release/planner bench/budget_check.sh >"$out" 2>&1 || status=$?
cat "$out"
grep -Eq '^open +.*OVER BUDGET$' "$out" && grep -Eq '^study +.*OVER BUDGET$' "$out" \
    && grep -Eq '^status +' "$out" && ! grep -Eq '^status +.*OVER BUDGET$' "$out" && ((status == 1)) || {
    echo "budget_guard_check: the guard did not fail the deliberate regression as it should (exit $status, above)" >&2
    exit 1
}
echo "budget_guard_check: the guard failed the deliberate regression (open and study over budget, status within it), as it should"
