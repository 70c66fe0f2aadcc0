#!/usr/bin/env bash
# check on this very machine (no accelerator, no CANN, two python3 on PATH
# that see different torch installs): it says so plainly and exits 0 or 1.
. "$(dirname "$0")/lib/assert.sh"

run_nd "$T/out" "$T/err" check
if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then pass "plain check exits 0 or 1 ($rc)"; else fail "plain check exit $rc"; cat "$T/out"; fi
assert_contains "$T/out" "no Ascend driver, CANN toolkit or NPU device files"
assert_contains "$T/out" "no NVIDIA driver or GPU device files"
# This machine's case: python3 first on PATH has no torch, /usr/bin/python3 has Debian's.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import torch' 2>/dev/null && ! python3 -c 'import torch' 2>/dev/null; then
  assert_contains "$T/out" "[python.interpreters-differ]" "two python3 on PATH with different torch"
  assert_contains "$T/out" "/usr/bin/python3 (/usr/bin/python3"
fi
run_nd "$T/j" "$T/err" check --json --python /usr/bin/python3
assert_json "$T/j" 'd["facts"]["python"]["packages"]["torch"]["cpu_only"] is True' "Debian's torch is seen as CPU-only from metadata"
assert_json "$T/j" '"/usr/lib/python3/dist-packages" in d["facts"]["python"]["sys_path"]'
run_nd "$T/q" "$T/err" check --quiet --python /usr/bin/python3
assert_not_contains "$T/q" "✓" "--quiet prints no ✓ lines"
run_nd "$T/h" "$T/err" check --help
expect_rc 0 "--help"
assert_contains "$T/h" "usage: npu-doctor check"
finish
