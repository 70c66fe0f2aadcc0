#!/usr/bin/env bash
# Human output fits the terminal: every --help within 80 columns, check's
# prose wrapped to 80 in a pipe (--wide keeps lines whole), ASCII marks in
# a non-UTF-8 locale, no colour for TERM=dumb or NO_COLOR.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env
# Columns are counted in characters, not bytes.
cols() { LC_ALL=C.UTF-8 python3 -c 'import sys; print(max([len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")] or [0]))' "$1"; }

for c in "" check run watch ps explain snapshot diff rules; do
  # shellcheck disable=SC2086 # "" is the top-level help
  "$ND" $c --help >"$T/h" 2>&1
  w=$(cols "$T/h")
  if [ "$w" -le 80 ]; then pass "npu-doctor $c --help fits 80 columns ($w)"; else fail "npu-doctor $c --help is $w columns wide"; grep -E '^.{81,}' "$T/h" | head -3; fi
done
for c in list lint test; do
  "$ND" rules "$c" --help >"$T/h" 2>&1
  w=$(cols "$T/h")
  if [ "$w" -le 80 ]; then pass "rules $c --help fits ($w)"; else fail "rules $c --help is $w columns wide"; fi
done

# check in a pipe: prose wraps at 80; titles (one line by design), evidence and fix lines (data
# and commands to copy) stay whole.
run_nd "$T/o" "$T/e" check --root "$R/ascend-910b-cann80" --env-file "$E/plain.env"
python3 - "$T/o" <<'PY' && pass "check's prose lines fit 80 columns" || fail "check's prose runs past 80 columns"
import sys
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines()
       if len(l) > 80 and not l.lstrip().startswith(("- ", "/", "fix:")) and not l.startswith("       ")
       and not l.startswith(("error: ", "warning: ", "info: "))]
for l in bad: print("    |", l)
sys.exit(1 if bad else 0)
PY
assert_contains "$T/o" "(classic layout ->" "a long check line is wrapped..."
assert_contains "$T/o" "    /usr/local/Ascend/ascend-toolkit/8.0.0)" "...and continues under its text"
run_nd "$T/w" "$T/e" check --wide --root "$R/ascend-910b-cann80" --env-file "$E/plain.env"
assert_contains "$T/w" "CANN 8.0.0 at /usr/local/Ascend/ascend-toolkit/latest (classic layout -> /usr/local/Ascend/ascend-toolkit/8.0.0)" \
  "--wide keeps the line whole"
assert_contains "$T/o" "fix: source /usr/local/Ascend/ascend-toolkit/set_env.sh" "fix lines are whole"

# Locale: LANG=C gets ASCII marks and no byte above 0x7f; a UTF-8 locale keeps the glyphs.
LANG=C LC_ALL= LC_CTYPE= run_nd "$T/a" "$T/e" check --root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env"
assert_contains "$T/a" "  ok CANN environment loaded" "LANG=C: 'ok' for a passed line"
assert_contains "$T/a" "  -- " "LANG=C: '--' for a note"
if LC_ALL=C grep -q '[^ -~]' "$T/a"; then fail "LANG=C output has non-ASCII bytes"; LC_ALL=C grep -n '[^ -~]' "$T/a" | head -3
else pass "LANG=C output is pure ASCII"; fi
LANG=C LC_ALL= LC_CTYPE= run_nd "$T/a" "$T/e" check --root "$R/ascend-910b-cann80" --env-file "$E/plain.env"
assert_contains "$T/a" "  !! CANN environment not loaded" "LANG=C: '!!' for a failed line"
LC_ALL=POSIX run_nd "$T/a" "$T/e" check --root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env"
assert_contains "$T/a" "  ok CANN environment loaded" "LC_ALL=POSIX wins over LANG"
LANG=C LC_ALL=en_US.UTF-8 run_nd "$T/u" "$T/e" check --root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env"
assert_contains "$T/u" "✓ CANN environment loaded" "a UTF-8 LC_ALL keeps the glyphs"

# Colour only on a terminal, and not for TERM=dumb or NO_COLOR (script(1) gives a pty).
if command -v script >/dev/null 2>&1; then
  cmd="$ND check --root $R/ascend-910b-cann80 --env-file $E/plain.env"
  TERM=xterm NO_COLOR= script -qec "$cmd" /dev/null >"$T/tty" 2>&1
  if grep -q $'\033\[' "$T/tty"; then pass "colour on a terminal"; else fail "no colour on a terminal"; fi
  TERM=dumb NO_COLOR= script -qec "$cmd" /dev/null >"$T/tty" 2>&1
  if grep -q $'\033\[' "$T/tty"; then fail "TERM=dumb still gets colour"; else pass "TERM=dumb: no colour"; fi
  TERM=xterm NO_COLOR=1 script -qec "$cmd" /dev/null >"$T/tty" 2>&1
  if grep -q $'\033\[' "$T/tty"; then fail "NO_COLOR still gets colour"; else pass "NO_COLOR: no colour"; fi
  if grep -q '\[env.cann-not-loaded\]' "$T/tty"; then pass "the check ran on the terminal"; else fail "no check output on the terminal"; fi
else
  fail "script(1) is missing (util-linux): cannot test terminal output"
fi
run_nd "$T/o" "$T/e" check --root "$R/ascend-910b-cann80" --env-file "$E/plain.env"
if grep -q $'\033\[' "$T/o"; then fail "colour in a pipe"; else pass "no colour in a pipe"; fi
finish
