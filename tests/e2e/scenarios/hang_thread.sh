#!/usr/bin/env bash
# A hang: the job's main thread waits on an event nobody sets (not a
# distributed job). hang, with each thread's state and wait channel, a way
# to get the Python stacks that exists here, and no HCCL/NCCL hints.
# Twin: the job computing to its end.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'

READY=$T/ready run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --hang-after 3 --json-summary="$T/sum.json" \
  -- "$PY" "$JOB" hang &
RUN=$!
wait_file "$T/ready" && JOBPID=$(cat "$T/ready")
if wait_text "$T/err" "npu-doctor: warning: The job looks stuck"; then pass "live hang alert"; else fail "no hang alert"; fi
kill -TERM "${JOBPID:-0}"
wait "$RUN"
finding_is "$T/sum.json" hang.no-progress hang warning
F="[f for f in d['findings'] if f['id'] == 'hang.no-progress'][0]"
assert_json "$T/sum.json" "any(e['text'].startswith('pid ') and ' threads:' in e['text'] and ' in ' in e['text'] for e in ${F}['evidence'])" "each thread's state and wait channel"
assert_json "$T/sum.json" "not any('HCCL' in x or 'NCCL' in x or 'TORCH_DISTRIBUTED' in x for x in ${F}['fix'])" "no distributed hints for a single process"
if command -v py-spy >/dev/null; then W="py-spy dump"; elif command -v gdb >/dev/null; then W="gdb -p"; else W="pip install py-spy"; fi
assert_json "$T/sum.json" "any(x.startswith('$W') for x in ${F}['fix'])" "the stack tool that is there ($W)"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --hang-after 3 \
  --json-summary="$T/sum2.json" -- "$PY" "$JOB" train 4
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
