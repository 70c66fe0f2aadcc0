#!/usr/bin/env bash
# "Did you mean" for a mistyped command and for a mistyped long option of
# every command: the error line, the hint line, the "try" line, exit 64.
. "$(dirname "$0")/lib/assert.sh"

run_nd "$T/o" "$T/e" chek
expect_rc 64 "a mistyped command"
assert_contains "$T/e" "npu-doctor: unknown command 'chek'"
assert_contains "$T/e" "did you mean 'check'?"
if [ "$(wc -l <"$T/e")" -eq 3 ]; then pass "one line, the hint, the try line"; else fail "stderr has $(wc -l <"$T/e") lines"; cat "$T/e"; fi
if [ "$(tail -n 1 "$T/e")" = "try 'npu-doctor --help'" ]; then pass "ends with the try line"; else fail "last line: $(tail -n 1 "$T/e")"; fi
if [ ! -s "$T/o" ]; then pass "nothing on stdout"; else fail "stdout not empty"; fi
run_nd "$T/o" "$T/e" explian x.log
assert_contains "$T/e" "did you mean 'explain'?"
run_nd "$T/o" "$T/e" frobnicate
expect_rc 64 "an unknown command far from any"
assert_not_contains "$T/e" "did you mean" "no hint when nothing is close"

# cmd  typo  wanted  [more args]
while read -r cmd typo want rest; do
  # shellcheck disable=SC2086 # rest holds words on purpose
  run_nd "$T/o" "$T/e" $cmd "$typo" $rest
  expect_rc 64 "$cmd $typo"
  assert_contains "$T/e" "npu-doctor $cmd: unknown option '$typo'" "$cmd: names the option"
  assert_contains "$T/e" "did you mean '$want'?" "$cmd $typo -> $want"
  n=$(wc -l <"$T/e")
  if [ "$n" -eq 3 ]; then pass "$cmd: one line, the hint, the try line"; else fail "$cmd: $n lines on stderr"; cat "$T/e"; fi
  if [ "$(sed -n 2p "$T/e")" = "did you mean '$want'?" ] && [ "$(sed -n 3p "$T/e")" = "try 'npu-doctor $cmd --help'" ]; then
    pass "$cmd: hint, then the try line"; else fail "$cmd: lines 2-3 are not the hint and the try line"; cat "$T/e"; fi
done <<'LIST'
check --levle --level 2
check --jsno --json
run --fail-fsat --fail-fast -- true
watch --pdi --pid 1
ps --jsno --json
explain --alll --all x.log
snapshot --outptu --output x.json
diff --jsno --json a.json b.json
rules --jsno --json list
LIST

run_nd "$T/o" "$T/e" rules lsit
expect_rc 64 "a mistyped rules subcommand"
assert_contains "$T/e" "unknown subcommand 'lsit'"
assert_contains "$T/e" "did you mean 'list'?"

run_nd "$T/o" "$T/e" check --json=yes
expect_rc 64 "a value for a flag"
assert_contains "$T/e" "option '--json' takes no value"
run_nd "$T/o" "$T/e" check --fail-on
expect_rc 64 "a missing value"
assert_contains "$T/e" "option '--fail-on' needs a value"
run_nd "$T/o" "$T/e" check --env 1
expect_rc 64 "an ambiguous prefix"
assert_contains "$T/e" "ambiguous option '--env': --env-from --env-file"
run_nd "$T/o" "$T/e" check --zzzzzzzz
expect_rc 64 "an option far from any"
assert_not_contains "$T/e" "did you mean" "no hint when no option is close"
finish
