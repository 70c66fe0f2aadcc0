#!/usr/bin/env bash
# The command-line surface: --help, --version, per-command help, bad usage.
. "$(dirname "$0")/lib/assert.sh"

run_nd "$T/out" "$T/err" --version
expect_rc 0 "--version"
assert_contains "$T/out" "npu-doctor 0." "--version prints the version"

run_nd "$T/out" "$T/err" --help
expect_rc 0 "--help"
for c in check run watch ps explain snapshot diff rules; do
  assert_contains "$T/out" "  $c " "--help lists $c"
  run_nd "$T/o2" "$T/e2" "$c" --help
  expect_rc 0 "$c --help"
  assert_contains "$T/o2" "usage: npu-doctor $c" "$c --help shows usage"
done

run_nd "$T/out" "$T/err" frobnicate
expect_rc 64 "unknown command"
assert_contains "$T/err" "unknown command 'frobnicate'"

run_nd "$T/out" "$T/err"
expect_rc 64 "no command"

finish
