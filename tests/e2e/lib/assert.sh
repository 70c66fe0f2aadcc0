# Shared helpers for e2e scenarios. Source it first thing:
#   . "$(dirname "$0")/lib/assert.sh"
# Provides $ND (the binary), $T (a scratch dir removed at exit), and asserts
# that print what was expected and what came instead.
set -u

ND=${ND_BIN:?ND_BIN must name the built npu-doctor}
T=$(mktemp -d "${TMPDIR:-/tmp}/nd-e2e.XXXXXX")
nd_cleanup() {
  # Kill anything a scenario left behind in its own process group helpers.
  [ -n "${ND_BG_PIDS:-}" ] && kill $ND_BG_PIDS 2>/dev/null
  rm -rf "$T"
}
trap nd_cleanup EXIT
ND_FAILS=0
ND_PASSES=0

pass() { ND_PASSES=$((ND_PASSES + 1)); echo "ok   - $*"; }
fail() { ND_FAILS=$((ND_FAILS + 1)); echo "FAIL - $*"; }

# run_nd OUTFILE ERRFILE ARGS...: runs npu-doctor, sets $rc.
run_nd() {
  local out=$1 err=$2
  shift 2
  "$ND" "$@" >"$out" 2>"$err"
  rc=$?
}

expect_rc() { # expect_rc WANT DESCRIPTION
  if [ "$rc" -eq "$1" ]; then pass "$2 (exit $rc)"; else fail "$2: exit $rc, wanted $1"; fi
}

assert_contains() { # FILE TEXT [DESCRIPTION]
  if grep -qF -- "$2" "$1"; then pass "${3:-$1 contains '$2'}"
  else fail "${3:-$1 contains '$2'}: not found in:"; sed -n '1,60p' "$1" | sed 's/^/    | /'; fi
}

assert_not_contains() { # FILE TEXT [DESCRIPTION]
  if grep -qF -- "$2" "$1"; then fail "${3:-$1 lacks '$2'}: found:"; grep -nF -- "$2" "$1" | head -5 | sed 's/^/    | /'
  else pass "${3:-$1 lacks '$2'}"; fi
}

# assert_json FILE PYEXPR [DESCRIPTION]: PYEXPR sees the document as d.
assert_json() {
  if python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d, "any": any, "all": all, "len": len})
sys.exit(0 if ok else 1)
PY
  then pass "${3:-json: $2}"
  else fail "${3:-json: $2}"; sed -n '1,80p' "$1" | sed 's/^/    | /'; fi
}

# nd_free_pid: a pid within pid_max that no process has (pids above
# pid_max are usage errors, not missing processes).
nd_free_pid() {
  local p
  p=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 4194304)
  while [ -e "/proc/$p" ]; do p=$((p - 1)); done
  echo "$p"
}

# Call at the end: prints the tally and sets the exit status.
finish() {
  echo "$ND_PASSES passed, $ND_FAILS failed"
  [ "$ND_FAILS" -eq 0 ]
}

# sim_910b_host [EXTRA_INI]: points the vendor libraries at the simulators
# and describes an idle host with 8 Ascend 910B3 NPUs in $T/state.ini;
# EXTRA_INI (per-device sections, processes...) comes first. NVML is pointed
# at nothing, so a real NVIDIA driver on the test machine stays out.
sim_910b_host() {
  export NPU_DOCTOR_DCMI_LIB=${ND_SIM:?}/libdcmi.so NPU_DOCTOR_NVML_LIB=$T/none ND_SIM_STATE=$T/state.ini
  {
    [ -n "${1:-}" ] && printf '%s\n' "$1"
    printf '[ascend]\ndriver_version = 24.1.rc1\ndevices = 8\nchip_name = 910B3\naicore_util = 0\n'
    printf 'hbm_total_mb = 65536\nhbm_used_mb = 0\nhealth = 0\n'
  } >"$T/state.ini"
}
