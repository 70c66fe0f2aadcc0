#!/usr/bin/env bash
# Rule files from --rules DIR are another user's text: a 5 MB line, a NUL
# byte, 100k sections, a pattern the matcher refuses, a capture regex that
# backtracks without bound. Each gets one clear line naming file:line (or
# the file, for its size) and a usage or input exit code, never a crash,
# and a NUL is never read as the end of a value. Every run is bounded by
# timeout; nothing asserts on time.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1
echo "torch.cuda.OutOfMemoryError: CUDA out of memory." >"$T/in.log"

python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
rule = "[t.{id}]\ncategory = config\nseverity = error\npattern = {pat}\ntitle = t\ncause = c\nfix = f\nexample = {ex}\n"
def put(name, data):
    os.makedirs(os.path.join(t, name), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(t, name, "a.rules"), mode) as f:
        f.write(data)
put("huge", "[t.huge]\ncategory = config\npattern = " + "a" * 5000000 + "\ntitle = t\ncause = c\nfix = f\n")
put("nul", b"[t.nul]\ncategory = config\npattern = abc\x00def\ntitle = t\ncause = c\nfix = f\nexample = abc\n")
put("sections", "".join("[t.s%d]\n" % i for i in range(100000)))
put("backref", rule.format(id="rej", pat="(a)\\1", ex="aa"))
put("nested", rule.format(id="cat", pat="aaaa", ex="aaaa") + "capture = x: (a+)+$\n")
PY

# one_line WHAT WANT_RC TEXT: the run just made exits WANT_RC with one line
# on stderr that holds TEXT.
one_line() {
  expect_rc "$2" "$1"
  assert_contains "$T/e" "$3" "$1: the line says why"
  local n
  n=$(grep -vc '^npu-doctor [a-z]*: [0-9]* problems\? found$' "$T/e")
  [ "$n" -eq 1 ] && pass "$1: one line" || { fail "$1: $n lines on stderr"; head -5 "$T/e" | sed 's/^/    | /'; }
}

timeout 120 "$ND" explain --rules "$T/huge" "$T/in.log" >"$T/o" 2>"$T/e"
rc=$?
one_line "a 5 MB rule file" 66 "huge/a.rules: larger than"
timeout 120 "$ND" explain --rules "$T/nul" "$T/in.log" >"$T/o" 2>"$T/e"
rc=$?
one_line "a NUL byte" 64 "nul/a.rules:3: a NUL byte"
timeout 120 "$ND" rules lint "$T/nul" >"$T/o" 2>"$T/e"
rc=$?
expect_rc 64 "rules lint refuses the NUL too"
assert_contains "$T/o" "nul/a.rules:3: a NUL byte" "rules lint names file:line"
timeout 120 "$ND" explain --rules "$T/backref" "$T/in.log" >"$T/o" 2>"$T/e"
rc=$?
one_line "a pattern the matcher refuses" 64 "backref/a.rules:4: [t.rej] pattern does not compile"
timeout 120 "$ND" explain --rules "$T/nested" "$T/in.log" >"$T/o" 2>"$T/e"
rc=$?
one_line "a capture that backtracks without bound" 64 "nested/a.rules:9: [t.cat] capture"
timeout 300 "$ND" explain --rules "$T/sections" "$T/in.log" >"$T/o" 2>"$T/e"
rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -lt 128 ] && pass "100k sections end without a crash (exit $rc)" || fail "100k sections: exit $rc"
[ "$(wc -l <"$T/e")" -le 1 ] && pass "100k sections: at most one line" || fail "100k sections: $(wc -l <"$T/e") lines"
finish
