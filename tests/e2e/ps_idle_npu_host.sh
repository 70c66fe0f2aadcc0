#!/usr/bin/env bash
# `npu-doctor ps` on a simulated idle 8x910B host (tests/sim libdcmi.so) with
# a real CPU-bound PyTorch process next to it: the verdict says it holds no
# device and torch is loaded, and ps warns that the NPUs idle meanwhile.
# Then the same host with a job that the vendor list names on npu:2.
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_DCMI_LIB=${ND_SIM:?}/libdcmi.so NPU_DOCTOR_NVML_LIB=$T/none
export ND_SIM_STATE=$T/state.ini
cat >"$T/state.ini" <<'INI'
[ascend]
driver_version = 24.1.rc1
devices = 8
chip_name = 910B3
aicore_util = 0
hbm_total_mb = 65536
hbm_used_mb = 0
health = 0
INI

# Debian's CPU-only torch is seen only by /usr/bin/python3 (not the pyenv one).
PY=/usr/bin/python3
# The job imports torch, says so, then computes on the CPU until killed.
"$PY" -c '
import os, sys, signal, torch
signal.alarm(600)
x = torch.ones(64, 64)
def worker(*_):
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        signal.alarm(600)
        signal.pause()
        os._exit(0)
    open(sys.argv[1] + ".w", "w").write(str(pid))
    os.rename(sys.argv[1] + ".w", os.path.dirname(sys.argv[1]) + "/worker")
signal.signal(signal.SIGUSR1, worker)
open(sys.argv[1] + ".tmp", "w").write("ok")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    x = (x @ x) * 0 + 1
' "$T/ready" &
JOB=$!
# shellcheck disable=SC2034 # read by nd_cleanup (lib/assert.sh) at exit
ND_BG_PIDS="$JOB"
for _ in $(seq 1800); do [ -s "$T/ready" ] && break; sleep 0.1; done
if [ -s "$T/ready" ]; then pass "torch job started"; else fail "torch job never became ready"; fi

# How much CPU the job gets depends on the machine's load; a low --busy
# keeps the verdict independent of it (any CPU in the window counts).
run_nd "$T/out" "$T/err" ps --interval 2 --busy 0.001 --json
expect_rc 1 "ps warns (exit 1)"
assert_json "$T/out" "len(d['devices']) == 8 and all(x['vendor'] == 'ascend' and x['name'] == '910B3' for x in d['devices'])" "8 simulated 910B devices"
assert_json "$T/out" "all(x['utilization_ratio'] == 0 and x['memory_total_bytes'] == 64 << 30 for x in d['devices'])" "idle, 64 GiB each"
assert_json "$T/out" "[p['verdict'] for p in d['processes'] if p['pid'] == $JOB] == ['cpu-only']" "the torch job is cpu-only"
assert_json "$T/out" "[p for p in d['processes'] if p['pid'] == $JOB][0]['devices'] == []" "it holds no device"
assert_json "$T/out" "{'torch', 'torch_cpu', 'python'} <= set([p for p in d['processes'] if p['pid'] == $JOB][0]['frameworks'])" "torch seen in its maps"
assert_json "$T/out" "'torch_npu' not in [p for p in d['processes'] if p['pid'] == $JOB][0]['frameworks']"
assert_json "$T/out" "[p for p in d['processes'] if p['pid'] == $JOB][0]['verdict_text'].endswith('torch loaded but not torch_npu, no device held')"
assert_json "$T/out" "[f['id'] for f in d['findings']] == ['ps.devices-idle-cpu-job']" "one finding"
assert_json "$T/out" "d['findings'][0]['category'] == 'cpu-fallback' and d['findings'][0]['severity'] == 'warning' and d['findings'][0]['confidence'] == 'high'"
assert_json "$T/out" "'PID $JOB' in d['findings'][0]['title'] or 'ML processes' in d['findings'][0]['title']"
assert_json "$T/out" "any('torch_npu' in x for x in d['findings'][0]['fix'])" "the fix names torch_npu"

run_nd "$T/out" "$T/err" ps --interval 1 --busy 0.001
expect_rc 1 "text: exit 1"
assert_contains "$T/out" "npu:7    910B3"
assert_contains "$T/out" "CPU only:"
assert_contains "$T/out" "torch loaded but not torch_npu, no device held"
assert_contains "$T/out" "8 NPUs idle while"

# Default threshold: the verdict still says torch and no device, whatever the CPU share.
run_nd "$T/out" "$T/err" ps --pid "$JOB" --json
assert_json "$T/out" "d['processes'][0]['devices'] == [] and d['processes'][0]['verdict'] in ('cpu-only', 'idle') and d['processes'][0]['verdict_text'].endswith('torch loaded but not torch_npu, no device held')"

# ---- the vendor list names the job on npu:2 with 31.7 GiB: on-device, no warning ----
cat >"$T/state2.ini" <<INI
[ascend]
driver_version = 24.1.rc1
devices = 8
chip_name = 910B3
aicore_util = 0
hbm_total_mb = 65536
hbm_used_mb = 0
proc = $JOB 2 32461
[ascend.device.2]
aicore_util = 87
hbm_used_mb = 32461
INI
mv "$T/state2.ini" "$T/state.ini"
run_nd "$T/out" "$T/err" ps --interval 0.5 --busy 0.001 --json
expect_rc 0 "a job on the device: no warning"
assert_json "$T/out" "d['findings'] == []"
assert_json "$T/out" "[p for p in d['processes'] if p['pid'] == $JOB][0]['devices'] == [{'vendor': 'ascend', 'index': 2, 'memory_bytes': 32461 << 20, 'how': 'vendor-list'}]" "held through the vendor list"
assert_json "$T/out" "[p for p in d['processes'] if p['pid'] == $JOB][0]['verdict'] == 'on-device'"
assert_json "$T/out" "d['processes'][0]['pid'] == $JOB" "device holders listed first"
# A worker forked by the job (like a DataLoader worker) holds no device itself.
kill -USR1 "$JOB"
for _ in $(seq 1200); do [ -s "$T/worker" ] && break; sleep 0.1; done
WORKER=$(cat "$T/worker" 2>/dev/null)
ND_BG_PIDS="$ND_BG_PIDS $WORKER"
run_nd "$T/out" "$T/err" ps --interval 0 --pid "$JOB"
assert_contains "$T/out" "npu:2 (31.7 GiB)"
assert_contains "$T/out" "(worker of $JOB on npu:2)" "the worker is tied to its parent's device"
run_nd "$T/out" "$T/err" ps --interval 0 --pid "$JOB" --json
assert_json "$T/out" "[p['verdict'] for p in d['processes'] if p['pid'] == ${WORKER:-0}] == ['idle']" "the worker itself holds nothing"

# ---- a broken driver: the failure is reported, ps still lists processes ----
printf '[ascend]\ndevices = 8\nfail = dcmi_init -8005\n' >"$T/state3.ini"
mv "$T/state3.ini" "$T/state.ini"
run_nd "$T/out" "$T/err" ps --interval 0 --pid "$JOB" --json
assert_json "$T/out" "d['devices'] == [] and d['processes'][0]['pid'] == $JOB" "no devices, the job still listed"
assert_json "$T/out" "any('-8005' in str(f) for f in d['findings'])" "the -8005 failure is a finding"

finish
