#!/usr/bin/env bash
# Partial fallback, 2 ranks on a simulated 910B host: rank 0 holds npu:0 with
# the CANN environment, rank 1 (its environment lacks the CANN variables)
# trains on the CPU. The job as a whole "holds a device"; the per-process
# verdicts must still give a cpu-fallback error naming rank 1, its pid and
# the reason from its own environment. Twin: both ranks on their NPU.
. "$(dirname "$0")/lib/scenario.sh"

sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000
[ascend.device.1]
aicore_util = 85
hbm_used_mb = 20000'
cat >"$T/launch.sh" <<SH
#!/usr/bin/env bash
# A launcher like torchrun: one process per rank.
export WORLD_SIZE=2 MASTER_ADDR=127.0.0.1
( export RANK=0 LOCAL_RANK=0 ${CANN_ENV[*]} DEVICE=$ROOT/dev/davinci0; exec $PY $JOB train 9 ) &
if [ "\${TWIN:-0}" = 1 ]; then
  ( export RANK=1 LOCAL_RANK=1 ${CANN_ENV[*]} DEVICE=$ROOT/dev/davinci1; exec $PY $JOB train 9 ) &
else
  ( export RANK=1 LOCAL_RANK=1; exec $PY $JOB train 9 ) &
fi
wait
SH
chmod +x "$T/launch.sh"

run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" -- "$T/launch.sh"
expect_rc 0 "the job's own status"
finding_is "$T/sum.json" fallback.partial cpu-fallback error
F="[f for f in d['findings'] if f['id'] == 'fallback.partial'][0]"
assert_json "$T/sum.json" "'rank 1 (pid ' in ${F}['title'] and 'npu:0' in ${F}['title']" "names rank 1 and the sibling's npu:0"
assert_json "$T/sum.json" "any('ASCEND_OPP_PATH' in e['text'] for e in ${F}['evidence'])" "the reason, from rank 1's own environment"
assert_json "$T/sum.json" "any(x.startswith('source ') for x in ${F}['fix']) and any('--env-from' in x for x in ${F}['fix'])" "fixes: the source line, check --env-from"
assert_json "$T/sum.json" "not any(f['id'] == 'fallback.cpu-fallback' for f in d['findings'])" "not the whole-job form"
assert_json "$T/sum.json" "sorted(p['verdict'] for p in d['processes'] if p['rank'] is not None) == ['framework-no-device', 'on-device']" "per-process verdicts in the summary"
assert_json "$T/sum.json" "[p['devices'] for p in d['processes'] if p['rank'] == '0'] == [[{'vendor': 'ascend', 'index': 0}]]" "rank 0 held npu:0"
assert_contains "$T/err" "npu-doctor: error: Part of the job computes on the CPU: rank 1 (pid" "live alert"

TWIN=1 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" -- "$T/launch.sh"
expect_rc 0 "twin: the job's own status"
twin_clean "$T/sum2.json" "$T/err2"
assert_json "$T/sum2.json" "sorted(p['verdict'] for p in d['processes'] if p['rank'] is not None) == ['on-device', 'on-device']" "twin: both ranks on a device"
finish
