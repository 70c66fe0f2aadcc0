#!/usr/bin/env bash
# `cmake --install` (what `make install PREFIX=...` runs) into a temporary
# prefix: the installed binary works, the man page documents every option
# each command's --help lists, bash and zsh completion complete commands,
# options and rule ids, and scripts/uninstall.sh (`make uninstall`) leaves
# nothing behind.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

P=$T/prefix
if cmake --install "${ND_BUILD:?}" --prefix "$P" >"$T/install.log" 2>&1; then pass "cmake --install into a prefix"
else fail "cmake --install failed:"; sed 's/^/    | /' "$T/install.log"; finish; exit 1; fi
BIN=$P/bin/npu-doctor
for f in bin/npu-doctor share/man/man1/npu-doctor.1 share/bash-completion/completions/npu-doctor \
         share/zsh/vendor-completions/_npu-doctor etc/npu-doctor/rules.d/README share/doc/npu-doctor/README.md \
         share/doc/npu-doctor/FORMAT.md; do
  if [ -f "$P/$f" ]; then pass "installed $f"; else fail "missing $P/$f"; fi
done

# The installed binary runs on its own (rules compiled in, no source tree needed).
if "$BIN" --version >"$T/v" 2>&1; then pass "installed --version"; else fail "installed --version"; fi
assert_contains "$T/v" "npu-doctor" "--version names the tool"
printf 'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n' >"$T/log"
(cd / && "$BIN" explain --json "$T/log") >"$T/ex.json" 2>/dev/null
assert_json "$T/ex.json" "d['findings'][0]['category'] == 'device-oom'" "installed explain works from /"
# A site rule dropped into the installed rules.d is read (through --root).
mkdir -p "$T/root/etc/npu-doctor/rules.d"
cat >"$T/root/etc/npu-doctor/rules.d/site.rules" <<'R'
[site.test-rule]
category = config
severity = warning
pattern  = SITE_SPECIFIC_MARKER_42
title    = A site rule
fix      = nothing
example  = SITE_SPECIFIC_MARKER_42
R
printf 'SITE_SPECIFIC_MARKER_42\n' >"$T/site.log"
"$BIN" explain --json --root "$T/root" "$T/site.log" >"$T/site.json" 2>/dev/null
assert_json "$T/site.json" "d['findings'][0]['id'] == 'site.test-rule'" "rules.d under --root is read"

# The man page lists every option of every command's --help.
sed 's/\\-/-/g' "$P/share/man/man1/npu-doctor.1" >"$T/man.txt"
missing=
for c in check run watch ps explain snapshot diff rules; do
  for o in $("$BIN" "$c" --help 2>&1 | grep -o -E -- '(^|[ ,\[])--[a-z][a-z0-9-]*' | sed 's/^[ ,\[]//' | sort -u); do
    [ "$o" = --help ] && continue
    grep -q -- "$o" "$T/man.txt" || missing="$missing $c:$o"
  done
done
if [ -z "$missing" ]; then pass "the man page documents every option"; else fail "options missing from the man page:$missing"; fi
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$P/share/man/man1/npu-doctor.1" 2>"$T/groff.err"
  if [ ! -s "$T/groff.err" ]; then pass "groff renders the man page without warnings"
  else fail "groff warnings:"; sed 's/^/    | /' "$T/groff.err"; fi
fi

# bash completion: commands, options, rule ids.
complete_bash() { # WORDS... -> the candidates for the last word
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _npu_doctor; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$P/share/bash-completion/completions/npu-doctor" "$@"
}
complete_bash "$BIN" ch >"$T/c1"
assert_contains "$T/c1" "check" "bash: 'ch' completes to check"
complete_bash "$BIN" explain --j >"$T/c2"
assert_contains "$T/c2" "--json" "bash: explain --j completes to --json"
complete_bash "$BIN" run --fail >"$T/c3"
assert_contains "$T/c3" "--fail-fast" "bash: run --fail completes to --fail-fast"
complete_bash "$BIN" rules test ascend.device >"$T/c4"
assert_contains "$T/c4" "ascend.device-oom" "bash: rules test completes rule ids"
complete_bash "$BIN" run -- pyth >"$T/c5"
if ! grep -q . "$T/c5"; then pass "bash: nothing is offered for the job's own words"; else fail "bash: completed after --"; fi
if command -v zsh >/dev/null; then
  if zsh -n "$P/share/zsh/vendor-completions/_npu-doctor"; then pass "zsh completion parses"; else fail "zsh completion has syntax errors"; fi
else
  fail "zsh is not installed (scripts/install-deps.sh installs it)"
fi

# Uninstall removes every installed file and our folders, nothing else.
touch "$P/share/doc/keep-me"
if "${ND_SRC:?}/scripts/uninstall.sh" "$ND_BUILD" >"$T/un.log" 2>&1; then pass "uninstall ran"; else fail "uninstall failed"; cat "$T/un.log"; fi
left=$(cd "$P" && find . -type f ! -name keep-me | sort)
if [ -z "$left" ]; then pass "uninstall left no installed file"; else fail "left behind: $left"; fi
if [ -f "$P/share/doc/keep-me" ]; then pass "uninstall kept a file it did not install"; else fail "uninstall removed a foreign file"; fi
if [ ! -d "$P/etc/npu-doctor" ]; then pass "uninstall removed the empty rules.d"; else fail "etc/npu-doctor left behind"; fi
finish
