#!/usr/bin/env bash
# Host OOM under an address-space limit: the job runs under `ulimit -v` and
# allocates 1 GiB tensors until torch fails. The finding must name
# RLIMIT_AS / ulimit -v with the limit, and the peak RSS. Twin: the same
# job, training, under the same limit.
. "$(dirname "$0")/lib/scenario.sh"
sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'
# 6 GiB of address space: enough to import torch, not for four more tensors of 1 GiB.
LIMIT_KB=6291456
DEVICE=$ROOT/dev/davinci0 run_nd "$T/out" "$T/err" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum.json" \
  --report "$T/rep" -- bash -c "ulimit -v $LIMIT_KB && exec $PY $JOB alloc"
expect_rc 1 "the job's own status"
finding_is "$T/sum.json" exit.rlimit-as host-oom error
F="[f for f in d['findings'] if f['id'] == 'exit.rlimit-as'][0]"
assert_json "$T/sum.json" "'ulimit -v (RLIMIT_AS) is 6.0 GiB' in ${F}['title']" "names the limit that bit"
assert_json "$T/sum.json" "any('RSS peaked at' in e['text'] for e in ${F}['evidence'])" "the peak RSS"
assert_json "$T/sum.json" "d['facts']['job']['peak_rss_bytes'] > 0"
assert_contains "$T/rep/timeline.svg" "Host memory of the job, RSS (GiB)" "the timeline has an RSS panel"

DEVICE=$ROOT/dev/davinci0 run_nd "$T/out2" "$T/err2" run --root "$ROOT" "${RUNOPTS[@]}" --json-summary="$T/sum2.json" \
  -- bash -c "ulimit -v $LIMIT_KB && exec $PY $JOB train 1"
expect_rc 0 "twin: exit 0"
twin_clean "$T/sum2.json" "$T/err2"
finish
