#!/usr/bin/env bash
# What another user controls reaches root's terminal shown, never obeyed:
# escape sequences, C1 controls (raw 0x9b and U+009B), bidi overrides and
# newlines in paths, option values and user names quoted by one-line errors,
# in rule files quoted by `rules lint` and `rules test`, and in the JSON
# documents people read with cat or less. Each check fails if a raw control
# byte or a bidi override comes out.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1

H=$(printf 'H\033]0;pwn\007\233\302\233\342\200\256\nFAKE: X')
# raw FILE...: succeeds when a raw control (but tab and newline), a C1
# control in UTF-8 or a bidi control is in the files.
raw() {
  LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]\|\xe2\x80[\x8e\x8f\xaa-\xae]\|\xe2\x81[\xa6-\xa9]' "$@" 2>/dev/null
}
# shown DESCRIPTION: the last run printed nothing raw and no line of its own from H.
shown() {
  if raw "$T/o" "$T/e"; then fail "$1: raw control bytes"; LC_ALL=C cat -v "$T/e" | head -3 | sed 's/^/    | /'
  elif grep -q '^FAKE: X' "$T/o" "$T/e"; then fail "$1: a newline in the input started a line"
  else pass "$1 (exit $rc)"; fi
}

mkdir -p "$T/h"
run_nd "$T/o" "$T/e" check --root "$T/h/$H"
shown "check --root with escapes"
assert_contains "$T/e" '\x1b]0;pwn\x07' "the escape is shown visibly"
run_nd "$T/o" "$T/e" check --env-file "$T/h/$H"
shown "check --env-file with escapes"
run_nd "$T/o" "$T/e" snapshot -o "$T/h/$H/x.json"
shown "snapshot -o in a folder with escapes"
run_nd "$T/o" "$T/e" diff "$T/h/$H.a" "$T/h/$H.b"
shown "diff of missing files with escapes"
run_nd "$T/o" "$T/e" ps --user "$H" --interval 0
shown "ps --user with escapes"
run_nd "$T/o" "$T/e" run --no-devices --report "/proc/$H" -- true
shown "run --report with escapes"
run_nd "$T/o" "$T/e" run --no-devices -- "$T/h/$H"
shown "run of a missing command with escapes"
run_nd "$T/o" "$T/e" rules lint "$T/h/$H"
shown "rules lint of a missing path with escapes"
run_nd "$T/o" "$T/e" explain --rules "$T/h/$H" /dev/null
shown "explain --rules of a missing folder with escapes"
run_nd "$T/o" "$T/e" watch --pid 1 --for "$H"
shown "a bad option value with escapes"

# Rule files from --rules are other people's text too.
mkdir -p "$T/r1" "$T/r2"
printf '[rule.x\033]0;pwn\007]\nid = x\npattern = foo(\n' >"$T/r1/a.rules"
run_nd "$T/o" "$T/e" rules lint "$T/r1"
expect_rc 64 "rules lint finds the problems"
assert_contains "$T/o" "unknown key 'id'" "the problems are listed"
shown "rules lint quotes a section name with escapes"
printf '[site.x]\ncategory = config\ntitle = t\nfix = f\npattern = foo\nexample = bar\033]0;x\007\302\233\n' >"$T/r2/a.rules"
run_nd "$T/o" "$T/e" rules test --rules "$T/r2"
expect_rc 1 "rules test finds the failing example"
assert_contains "$T/o" "example does not match: bar" "the failing example is listed"
shown "rules test quotes an example with escapes"
run_nd "$T/o" "$T/e" explain --rules "$T/r1" /dev/null
shown "explain --rules quotes a broken rule file"

# JSON read on a terminal: C1 and bidi controls are \u escapes, and the
# strings still decode to the original characters.
mkdir -p "$T/d$(printf '\302\233\342\200\256')x"
printf 'torch.cuda.OutOfMemoryError: CUDA out of memory. \302\233 \342\200\256\n' >"$T/d$(printf '\302\233\342\200\256')x/r.log"
run_nd "$T/o" "$T/e" explain --json "$T"
if raw "$T/o"; then fail "explain --json has raw C1 or bidi controls"; else pass "explain --json escapes C1 and bidi controls"; fi
assert_contains "$T/o" '\u009b' "U+009B is written as an escape"
assert_json "$T/o" 'any("\u202e" in f["first"]["file"] for f in d["findings"])' "the file name still decodes to its characters"
printf 'PATH=/usr/bin:/bin\nBANNER=a\302\233b\342\200\256c\n' >"$T/b.env"
run_nd "$T/o" "$T/e" snapshot --json --env-file "$T/b.env"
if raw "$T/o"; then fail "snapshot --json has raw C1 or bidi controls"; else pass "snapshot --json escapes C1 and bidi controls"; fi
assert_json "$T/o" 'd["env"]["BANNER"] == "a\u009bb\u202ec"' "the value decodes to the original"
run_nd "$T/o" "$T/e" run --no-devices --json-summary=- -- true "$(printf 'a\302\233b\342\200\256c')"
if raw "$T/o"; then fail "run --json-summary has raw C1 or bidi controls"; else pass "run --json-summary escapes them"; fi
# A device's name and driver version come from the vendor library (here the
# simulator): snapshot --text and ps show them escaped.
printf '[ascend]\ndriver_version = 24.1\033]0;x\007\ndevices = 2\nchip_name = 910B\033]0;pwn\007\302\233\342\200\256\naicore_util = 0\nhbm_total_mb = 65536\nhbm_used_mb = 0\nhealth = 0\n' >"$T/state.ini"
export NPU_DOCTOR_DCMI_LIB=${ND_SIM:?}/libdcmi.so NPU_DOCTOR_NVML_LIB=$T/none ND_SIM_STATE=$T/state.ini
printf 'PATH=/usr/bin:/bin\n' >"$T/p.env"
run_nd "$T/o" "$T/e" snapshot --text --env-file "$T/p.env"
assert_contains "$T/o" '2 x 910B\x1b]0' "snapshot --text names the device, escaped"
shown "snapshot --text with a device name from the vendor library"
run_nd "$T/o" "$T/e" ps --interval 0
shown "ps with a device name from the vendor library"
finish
