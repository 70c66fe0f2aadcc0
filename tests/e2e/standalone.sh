#!/usr/bin/env bash
# The project stands alone: no tracked file points at documents outside the
# repository (a design or reference folder beside the clone, a workstation
# path). A user's clone has only what is in it, so the code, tests, scripts
# and docs name files of the repository or public sources, nothing else.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

SRC=${ND_SRC:?}
cd "$SRC" || exit 1
pattern='\.\./shared|shared/reference|/work/shared|\bdesign\.md\b|\b(ascend|nvidia)\.md\b'
self=tests/e2e/standalone.sh
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  pass "not a git checkout: nothing to check"; finish
fi
mapfile -t files < <(git ls-files -- src tests fuzz bench scripts cmake rules docs data packaging deploy completion \
                       CMakeLists.txt Makefile Dockerfile README.md .gitignore | grep -v "^$self\$" | grep -v '^tests/corpus/')
hits=$(grep -nIE -- "$pattern" "${files[@]}" 2>/dev/null || true)
if [ -z "$hits" ]; then pass "no file of ${#files[@]} points outside the repository"
else fail "files that point outside the repository:"; printf '%s\n' "$hits" | sed 's/^/    | /'; fi
finish
