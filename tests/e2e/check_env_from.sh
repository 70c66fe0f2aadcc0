#!/usr/bin/env bash
# check --env-from PID judges the job's own interpreter (/proc/PID/exe), not
# the first python3 on PATH, and says which command the job runs; level 3
# on a host without devices says the bandwidth test was skipped.
. "$(dirname "$0")/lib/assert.sh"

# The interpreter itself, not a shim script in front of it (pyenv).
PY=$(python3 -c 'import sys; print(sys.executable)')
REAL=$(readlink -f "$PY")
printf 'import time\ntime.sleep(120)\n' >"$T/train.py"
# An empty PATH: "python3 on PATH" would find nothing, the job's exe is still known.
env -i PATH=/nonexistent "$REAL" -u "$T/train.py" &
JOB=$!
ND_BG_PIDS="$JOB"
for _ in $(seq 50); do [ "$(readlink /proc/$JOB/exe)" = "$REAL" ] && break; sleep 0.1; done

run_nd "$T/o" "$T/e" check --wide --env-from "$JOB"
assert_contains "$T/o" "the job's environment: pid $JOB"
assert_contains "$T/o" "the job runs $REAL $T/train.py" "names the job's interpreter and script"
assert_not_contains "$T/o" "python3 is not on PATH" "the interpreter comes from /proc/PID/exe, not PATH"
run_nd "$T/j" "$T/e" check --env-from "$JOB" --json
assert_json "$T/j" "d['facts']['python']['executable'] == '$REAL' and d['facts']['python']['path'] == '$REAL'" "facts: python.executable is the job's exe"
assert_json "$T/j" "d['facts']['environment']['job_python'] == '$REAL' and d['facts']['environment']['job_script'] == '$T/train.py'" \
  "facts: environment.job_python and job_script"

# --python still wins over the job's exe.
run_nd "$T/j" "$T/e" check --env-from "$JOB" --json --python "$PY"
assert_json "$T/j" "d['facts']['environment']['job_python'] == '$REAL'" "job_python stays the job's exe"

# snapshot --env-from records the same interpreter (not python3 on PATH).
run_nd "$T/j" "$T/e" snapshot --env-from "$JOB" --json
assert_json "$T/j" "d['facts']['python']['executable'] == '$REAL'" "snapshot: python.executable is the job's exe"

# A job that is no Python: judged by PATH, with a note saying so.
sleep 120 &
SL=$!
ND_BG_PIDS="$JOB $SL"
run_nd "$T/o" "$T/e" check --env-from "$SL"
assert_contains "$T/o" "not a Python: judging python3 on its PATH" "a non-Python job gets a note"
kill "$SL" 2>/dev/null

# Level 3 without devices (the vendor libraries pointed at nothing): a note, not silence.
NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none NPU_DOCTOR_ACL_LIB=$T/none NPU_DOCTOR_CUDA_LIB=$T/none \
  run_nd "$T/o" "$T/e" check --root "$ND_FIXTURES/roots/container-no-driver" --env-file "$ND_FIXTURES/env/plain.env" --level 3 --timeout 20
assert_contains "$T/o" "level 3: host<->device bandwidth test skipped: no device answered" "level 3 says what it skipped"
NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none NPU_DOCTOR_ACL_LIB=$T/none NPU_DOCTOR_CUDA_LIB=$T/none \
  run_nd "$T/j" "$T/e" check --root "$ND_FIXTURES/roots/container-no-driver" --env-file "$ND_FIXTURES/env/plain.env" --level 3 --timeout 20 --json
assert_json "$T/j" "'no device answered' in d['facts']['devices']['bandwidth_skipped']" "facts: devices.bandwidth_skipped"
NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none \
  run_nd "$T/o" "$T/e" check --root "$ND_FIXTURES/roots/container-no-driver" --env-file "$ND_FIXTURES/env/plain.env" --level 2 --timeout 20
assert_not_contains "$T/o" "bandwidth test skipped" "level 2 has no such note"
kill "$JOB" 2>/dev/null
finish
