#!/usr/bin/env bash
# diff on bad input: each case is one clear line naming the file, exit 64
# (usage) or 66 (the input cannot be used); never a crash.
. "$(dirname "$0")/lib/assert.sh"

GOOD=${ND_FIXTURES:?}/snapshots/founding/good.json
BAD=${ND_FIXTURES:?}/snapshots/founding/bad.json

one_line() { # DESCRIPTION
  if [ "$(wc -l <"$T/err")" -eq 1 ]; then pass "$1: one line"; else fail "$1: $(wc -l <"$T/err") lines on stderr"; cat "$T/err"; fi
}

run_nd "$T/out" "$T/err" diff "$GOOD"
expect_rc 64 "a single file"
assert_contains "$T/err" "got only $GOOD"
one_line "single file"

run_nd "$T/out" "$T/err" diff
expect_rc 64 "no file"
one_line "no file"

run_nd "$T/out" "$T/err" diff "$GOOD" "$GOOD"
expect_rc 64 "the same file twice"

run_nd "$T/out" "$T/err" diff --frobnicate "$GOOD" "$BAD"
expect_rc 64 "unknown option"

run_nd "$T/out" "$T/err" diff --redact '(' "$GOOD" "$BAD"
expect_rc 64 "invalid --redact regex"
assert_contains "$T/err" "--redact '('"

head -c 700 "$GOOD" >"$T/truncated.json"
run_nd "$T/out" "$T/err" diff "$GOOD" "$T/truncated.json"
expect_rc 66 "truncated snapshot"
assert_contains "$T/err" "$T/truncated.json: truncated or not JSON"
one_line "truncated"

printf 'RANK=3\nPATH=/usr/bin\n' >"$T/env.txt"
run_nd "$T/out" "$T/err" diff "$T/env.txt" "$GOOD"
expect_rc 66 "non-JSON input"
assert_contains "$T/err" "$T/env.txt"
one_line "non-JSON"

head -c 3000 /dev/urandom >"$T/binary.json"
run_nd "$T/out" "$T/err" diff "$GOOD" "$T/binary.json"
expect_rc 66 "binary input"
one_line "binary"

: >"$T/empty.json"
run_nd "$T/out" "$T/err" diff "$GOOD" "$T/empty.json"
expect_rc 66 "empty file"
assert_contains "$T/err" "$T/empty.json: empty file"

sed 's|"schema": "npu-doctor/2"|"schema": "npu-doctor/3"|' "$GOOD" >"$T/newer.json"
run_nd "$T/out" "$T/err" diff "$GOOD" "$T/newer.json"
expect_rc 66 "newer schema"
assert_contains "$T/err" "$T/newer.json: schema npu-doctor/3 is newer than this npu-doctor understands (npu-doctor/2)"
one_line "newer schema"

sed 's|"snapshot_version": 1|"snapshot_version": 7|' "$GOOD" >"$T/newver.json"
run_nd "$T/out" "$T/err" diff "$T/newver.json" "$GOOD"
expect_rc 66 "newer snapshot version"
assert_contains "$T/err" "$T/newver.json: snapshot version 7 is newer than this npu-doctor understands (version 1)"

sed 's|"command": "snapshot"|"command": "check"|' "$GOOD" >"$T/check.json"
run_nd "$T/out" "$T/err" diff "$GOOD" "$T/check.json"
expect_rc 66 "a check report is not a snapshot"
assert_contains "$T/err" "not a snapshot"

mkdir "$T/snaps"
run_nd "$T/out" "$T/err" diff "$T/snaps" "$GOOD"
expect_rc 66 "a directory"
assert_contains "$T/err" "$T/snaps: is a directory"
one_line "directory"

run_nd "$T/out" "$T/err" diff "$GOOD" "$T/missing.json"
expect_rc 66 "a missing file"
assert_contains "$T/err" "$T/missing.json"
one_line "missing"

# Deeply nested and odd-typed (but valid) snapshots are compared, not crashed on.
python3 - "$T/deep.json" <<'PY'
import json, sys
deep = "x"
for _ in range(200):
    deep = {"a": deep}
doc = {"schema": "npu-doctor/1", "command": "snapshot", "facts": {"host": {"odd": [1, "two", None, {"k": [[]]}]}, "deep": deep},
       "env": {"A": "1", "B": 2}, "devices": [1, "x", {"index": 0}], "findings": [{"nothing": 1}, 5]}
json.dump(doc, open(sys.argv[1], "w"))
PY
run_nd "$T/out" "$T/err" diff "$GOOD" "$T/deep.json"
expect_rc 1 "odd but valid snapshot compared"
if [ -s "$T/out" ]; then pass "odd snapshot: output produced"; else fail "odd snapshot: no output"; fi
finish
