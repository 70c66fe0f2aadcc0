#!/usr/bin/env bash
# `npu-doctor run` on a healthy job: it holds a simulated NPU (the device node
# under --root is open and the simulator's process list names it) and the
# device is busy. No finding at all, and the job's exit status.
. "$(dirname "$0")/lib/assert.sh"

ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
sim_910b_host '[ascend.device.0]
aicore_util = 92
hbm_used_mb = 30000'

run_nd "$T/out" "$T/err" run --root "$ROOT" --interval 0.5 --window 3 --warmup 1 --hang-after 4 \
  --json-summary="$T/sum.json" --report "$T/rep" --metrics-file "$T/job.prom" \
  -- "$ND_FIXTURES/jobs/holds_device.sh" "$ROOT" 8
expect_rc 0 "healthy job: exit 0"
assert_contains "$T/out" "job done"
# Nothing about the job; on a crowded CI host the host's own load may be
# noted (host.cpu-contention, info), never more.
assert_json "$T/sum.json" "all(f['id'] == 'host.cpu-contention' and f['severity'] == 'info' for f in d['findings'])" \
  "no finding about the job"
assert_json "$T/sum.json" "d['job']['exit_status'] == 0"
assert_not_contains "$T/err" "npu-doctor: error"
assert_not_contains "$T/err" "npu-doctor: warning"
if python3 -c 'import json, sys; sys.exit(1 if json.load(open(sys.argv[1]))["findings"] else 0)' "$T/sum.json"; then
  assert_contains "$T/err" "no problems found"
else
  assert_contains "$T/err" "0 errors, 0 warnings, 1 note"
fi
# The job held npu0 for (almost) the whole run, at 92% utilisation.
assert_json "$T/rep/report.json" "d['facts']['job']['on_device_ratio'] > 0.5" "on a device most of the time"
assert_json "$T/rep/report.json" "any(p['on_device'] and p['job_utilization_ratio'] == 0.92 for p in d['series']['points'])" "job utilisation from the held device"
assert_json "$T/rep/report.json" "any(p['utilization_ratio'][0] == 0.92 and p['memory_used_bytes'][0] == 30000 << 20 for p in d['series']['points'])"
# The Prometheus textfile as last written.
assert_contains "$T/job.prom" 'npu_doctor_device_utilization_ratio{device="0",vendor="ascend"} 0.920'
assert_contains "$T/job.prom" 'npu_doctor_device_memory_used_bytes{device="0",vendor="ascend"} 31457280000'
assert_contains "$T/job.prom" 'npu_doctor_findings_total{category="cpu-fallback",severity="error"} 0'
# The job ended: running 0 and its gauges at their final values, so alerts clear; its labels.
assert_contains "$T/job.prom" 'npu_doctor_job_cpu_cores{command="'
if grep -Eq '^npu_doctor_job_running\{command="[^"]*holds_device.sh[^"]*",pid="[0-9]+"\} 0$' "$T/job.prom"; then
  pass "npu_doctor_job_running 0 after the end, with command and pid labels"
else fail "npu_doctor_job_running 0 with labels:"; grep job_ "$T/job.prom" | sed 's/^/    | /'; fi
if grep -Eq '^npu_doctor_job_cpu_cores\{.*\} 0.000$' "$T/job.prom" && grep -Eq '^npu_doctor_job_on_device\{.*\} 0$' "$T/job.prom"; then
  pass "final values: no CPU, no device"; else fail "stale job gauges after the end"; fi
if grep -Eq '^npu_doctor_job_last_sample_timestamp_seconds\{.*\} [0-9]{10}$' "$T/job.prom"; then
  pass "the time of the last sample"; else fail "no last-sample timestamp"; fi
if grep -v '^#' "$T/job.prom" | awk '{ sub(/[{].*[}]/, ""); if (NF != 2) bad = 1 } END { exit bad }'; then
  pass "no timestamps in the textfile"; else fail "a sample line has more than one value"; fi
finish
