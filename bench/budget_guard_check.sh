#!/usr/bin/env bash
# Shows, on every CI run, that the instruction budget guard (bench/budget_check.sh) fails a regression (issue
# 31): builds the release binary with bench/regression.patch applied (one needless query in `open`'s
# transaction), and passes only when budget_check fails that binary for the commands that record an open and
# leaves a command the patch does not touch within its budget. The tree is put back on exit; the binary left in
# .build/release is then the regressed one, so `.ci/run` runs this last (the next `swift build` rebuilds it).
#
#   bench/budget_guard_check.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PATCH=bench/regression.patch
# The patch must apply to this tree as it is: a file it touches with changes of its own is refused, not mixed.
files=$(git apply --numstat "$PATCH" | cut -f3)
# shellcheck disable=SC2086
git diff --quiet -- $files || { echo "budget_guard_check: $files has uncommitted changes; commit or stash them first" >&2; exit 1; }
git apply --check "$PATCH" 2>/dev/null || {
    echo "budget_guard_check: $PATCH no longer applies to this tree; make it again (one needless query in open's transaction)" >&2
    exit 1
}
# shellcheck disable=SC2064
trap "git apply -R '$PATCH'" EXIT
git apply "$PATCH"
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
