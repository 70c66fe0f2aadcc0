#!/usr/bin/env bash
# The seed case of `npu-doctor run`: a simulated host with 8 idle 910B NPUs and
# CANN installed under --root, and a real PyTorch training script (Debian's
# CPU-only torch, no CANN variables in its environment) that silently trains
# on the CPU. cpu-fallback must come within window + 2 intervals of the
# sampler clock, name the missing CANN environment and the `source` line;
# with --fail-fast the job is stopped (exit 3) and nothing of it is left.
. "$(dirname "$0")/lib/assert.sh"

ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
JOB=$ND_FIXTURES/jobs/train_cnn.py
sim_910b_host
# The job's environment lacks CANN, as after a forgotten `source set_env.sh`.
unset ASCEND_HOME_PATH ASCEND_OPP_PATH ASCEND_TOOLKIT_HOME ASCEND_AICPU_PATH PYTHONPATH
WINDOW=5 INTERVAL=0.5

TRAIN_SECONDS=12 "$ND" run --root "$ROOT" --interval $INTERVAL --window $WINDOW --json-summary="$T/sum.json" \
  --report "$T/rep" -- /usr/bin/python3 "$JOB" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "run returns the job's own status"
assert_contains "$T/out" "training on cpu" "the job's stdout passes through"
assert_contains "$T/out" "done: " "the job ran to its end"
assert_contains "$T/err" "npu-doctor: error: The job computes on the CPU while 8 Ascend NPUs sit idle" "live alert on stderr"
assert_json "$T/sum.json" "d['schema'] == 'npu-doctor/2' and d['command'] == 'run'"
assert_json "$T/sum.json" "d['job']['argv'][0] == '/usr/bin/python3' and d['job']['exit_status'] == 0 and d['job']['pid'] > 0 and d['job']['duration_s'] > 0"
assert_json "$T/sum.json" "[f['severity'] for f in d['findings'] if f['category'] == 'cpu-fallback'] == ['error']" "one cpu-fallback error"
# The sampler clock: reported at the first tick that covers the window, or
# within two more. On a host so crowded that the job is still importing torch
# (nothing printed yet) when the window ends, the detector waits for the job
# to get past its imports (monitor/fallback.c): then within two ticks of its
# first output.
FIRST_OUT=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["series"]["points"]
print(min([x["t_s"] for x in p if x.get("out_bytes", 0) > 0] or [0]))' "$T/rep/report.json")
assert_json "$T/sum.json" "[f for f in d['findings'] if f['category'] == 'cpu-fallback'][0]['at_s'] <= max($WINDOW, $FIRST_OUT) + 2 * $INTERVAL" \
  "at_s <= window (or the job's first output) + 2 intervals"
assert_json "$T/sum.json" "[f for f in d['findings'] if f['category'] == 'cpu-fallback'][0]['at_s'] >= $WINDOW" "not before the window"
F="[f for f in d['findings'] if f['category'] == 'cpu-fallback'][0]"
# The job's own "training on cpu" (a knowledge-base line) is evidence of the measured finding, not a second one.
assert_json "$T/sum.json" "any(e['text'] == 'the output says so: training on cpu' and e['file'] == 'stdout' for e in ${F}['evidence'])" "the output's word is evidence"
assert_json "$T/sum.json" "any('ASCEND_OPP_PATH' in e['text'] for e in ${F}['evidence'])" "evidence names the missing CANN variables"
assert_json "$T/sum.json" "any('torch_npu' in e['text'] and 'not loaded' in e['text'] for e in ${F}['evidence'])" "evidence: torch_npu not mapped"
assert_json "$T/sum.json" "any('8 x ascend 910B3' in e['text'] and '0% utilisation' in e['text'] for e in ${F}['evidence'])" "evidence: devices idle"
assert_json "$T/sum.json" "${F}['fix'][0] == 'source /usr/local/Ascend/ascend-toolkit/set_env.sh'" "the fix is the source line"
assert_json "$T/sum.json" "not any(f['category'] in ('hang', 'input-bound') for f in d['findings'])" "no other detector fired"
# The report folder.
assert_json "$T/rep/report.json" "0 < len(d['series']['points']) <= 2000 and len(d['series']['devices']) == 8" "report.json holds the series"
assert_json "$T/rep/report.json" "d['facts']['devices']['usable'] and d['facts']['job']['on_device_ratio'] == 0"
assert_contains "$T/rep/timeline.csv" "t_s,cpu_cores,rss_bytes"
AT=$(python3 -c 'import json, sys
print("%g" % [f for f in json.load(open(sys.argv[1]))["findings"] if f["category"] == "cpu-fallback"][0]["at_s"])' "$T/sum.json")
if [ "$AT" = 5 ]; then
  assert_contains "$T/rep/timeline.svg" "cpu-fallback @ 5s" "the chart marks the finding at its time"
else
  assert_contains "$T/rep/timeline.svg" "cpu-fallback @ " "the chart marks the finding (at ${AT} s on this crowded host)"
fi

# --fail-fast: stopped at the finding, exit 3, nothing of the job left behind.
"$ND" run --root "$ROOT" --interval $INTERVAL --window $WINDOW --fail-fast --grace 2 --json-summary="$T/ff.json" \
  -- /usr/bin/python3 "$JOB" >"$T/out2" 2>"$T/err2"
rc=$?
expect_rc 3 "--fail-fast exits 3"
assert_contains "$T/err2" "--fail-fast: stopping the job"
assert_json "$T/ff.json" "d['job']['exit_status'] in (143, 137) and d['job']['duration_s'] < 60" "the job was stopped, not finished"
pgid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["pid"])' "$T/ff.json")
if ps -eo pid=,pgid=,stat= | awk -v g="$pgid" '$2 == g' | grep -q .; then
  fail "processes of the job are left:"; ps -eo pid,pgid,stat,args | awk -v g="$pgid" '$2 == g'
else pass "no process of the job is left (group $pgid)"; fi
finish
