#!/usr/bin/env bash
# `npu-doctor ps`: options and exit codes, and the footprint of real
# processes: one holding a file that stands in for /dev/davinci3 under
# --root, one mapping libraries named like runtimes, one spinning on the CPU.
. "$(dirname "$0")/lib/assert.sh"

JOB=${ND_HELPERS:?}/footprint_job
# No vendor library may answer: this scenario is about processes only.
export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none

# wait_ready FILE: the helper announces itself by creating FILE (hang guard only).
wait_ready() {
  for _ in $(seq 1200); do [ -s "$1" ] && return 0; sleep 0.1; done
  fail "helper never wrote $1"; return 1
}

# ---- usage and exit codes ----
run_nd "$T/out" "$T/err" ps --help
expect_rc 0 "ps --help"
assert_contains "$T/out" "usage: npu-doctor ps"
assert_contains "$T/out" "--interval"
run_nd "$T/out" "$T/err" ps --frobnicate
expect_rc 64 "unknown option"
assert_contains "$T/err" "npu-doctor ps: unknown option '--frobnicate'"
run_nd "$T/out" "$T/err" ps --interval soon
expect_rc 64 "--interval not a number"
run_nd "$T/out" "$T/err" ps --interval -1
expect_rc 64 "--interval negative"
run_nd "$T/out" "$T/err" ps --busy 0
expect_rc 64 "--busy zero"
run_nd "$T/out" "$T/err" ps --pid abc
expect_rc 64 "--pid not a number"
run_nd "$T/out" "$T/err" ps --pid
expect_rc 64 "--pid without a value"
run_nd "$T/out" "$T/err" ps extra-arg
expect_rc 64 "stray argument"
# Above pid_max a pid is a usage error; within it, one no process has is missing input.
run_nd "$T/out" "$T/err" ps --pid 2000000000
expect_rc 64 "--pid above pid_max"
free_pid=$(nd_free_pid)
run_nd "$T/out" "$T/err" ps --pid "$free_pid"
expect_rc 66 "--pid of a missing process"
assert_contains "$T/err" "--pid $free_pid: no such process"
run_nd "$T/out" "$T/err" ps --user no_such_user_nd_e2e
expect_rc 66 "--user unknown"
run_nd "$T/out" "$T/err" ps --root "$T/missing"
expect_rc 66 "--root missing"
if [ "$(wc -l <"$T/err")" -eq 1 ]; then pass "one line on stderr"; else fail "stderr has $(wc -l <"$T/err") lines"; fi

# ---- a process holding a stand-in device node under --root ----
mkdir -p "$T/root/dev" "$T/lib"
: >"$T/root/dev/davinci3"
: >"$T/root/dev/davinci_manager"
"$JOB" --open "$T/root/dev/davinci3" --open "$T/root/dev/davinci_manager" --ready "$T/r1" &
P1=$!
ND_BG_PIDS="$P1"
wait_ready "$T/r1"
run_nd "$T/out" "$T/err" ps --root "$T/root" --pid "$P1" --interval 0.2 --json
expect_rc 0 "ps --pid holder --json"
assert_json "$T/out" "d['schema'] == 'npu-doctor/2' and d['command'] == 'ps' and d['findings'] == []"
assert_json "$T/out" "[p['pid'] for p in d['processes']] == [$P1]" "only the asked pid"
assert_json "$T/out" "d['processes'][0]['devices'] == [{'vendor': 'ascend', 'index': 3, 'memory_bytes': None, 'how': 'device-file'}]" "holds ascend 3 through the device file"
assert_json "$T/out" "d['processes'][0]['verdict'] == 'on-device' and d['processes'][0]['verdict_text'] == 'npu:3'"
assert_json "$T/out" "d['processes'][0]['user'] and d['processes'][0]['ppid'] == $$ and 'footprint_job' in d['processes'][0]['command']"
assert_json "$T/out" "d['processes'][0]['rss_bytes'] > 0 and d['processes'][0]['cpu_cores'] >= 0"
run_nd "$T/out" "$T/err" ps --root "$T/root" --pid "$P1" --interval 0.2
expect_rc 0 "ps --pid holder (text)"
assert_contains "$T/out" "npu:3"
assert_contains "$T/out" "VERDICT"
# Without --root the same file in a scratch folder is no device.
run_nd "$T/out" "$T/err" ps --pid "$P1" --interval 0 --json
assert_json "$T/out" "d['processes'][0]['devices'] == [] and d['processes'][0]['verdict'] == 'idle'" "no --root: a plain file is no device"

# ---- mapped libraries named like runtimes ----
# Real runtimes are large (ps reads maps only of processes over 64 MiB of
# address space): a sparse 128 MiB stand-in, mapped but never touched.
truncate -s 128M "$T/lib/libascendcl.so"
cp "$JOB" "$T/lib/libtorch_npu.so"
"$JOB" --map "$T/lib/libascendcl.so" --map "$T/lib/libtorch_npu.so" --ready "$T/r2" &
P2=$!
ND_BG_PIDS="$ND_BG_PIDS $P2"
wait_ready "$T/r2"
run_nd "$T/out" "$T/err" ps --pid "$P2" --interval 0.2 --json
expect_rc 0 "ps --pid mapper"
assert_json "$T/out" "set(d['processes'][0]['frameworks']) == {'torch', 'torch_npu', 'ascendcl'}" "runtimes seen in maps"
assert_json "$T/out" "d['processes'][0]['devices'] == [] and d['processes'][0]['verdict'] == 'idle'" "a loaded runtime is no held device"
assert_json "$T/out" "d['processes'][0]['verdict_text'] == 'idle: torch_npu loaded, no device held'"
# Default listing (no --pid): holders and busy processes only; --all adds
# the idle ones, the idle ML process with its frameworks.
"$JOB" --ready "$T/r3" &
P3=$!
ND_BG_PIDS="$ND_BG_PIDS $P3"
wait_ready "$T/r3"
run_nd "$T/out" "$T/err" ps --root "$T/root" --interval 0.2 --json
assert_json "$T/out" "any(p['pid'] == $P1 and p['verdict'] == 'on-device' for p in d['processes'])" "default listing shows the device holder"
assert_json "$T/out" "not any(p['pid'] in ($P2, $P3) for p in d['processes'])" "default listing hides idle processes"
assert_json "$T/out" "d['listing'] == 'interesting' and d['processes_total'] >= len(d['processes']) + 2"
run_nd "$T/out" "$T/err" ps --interval 0 --all --json
assert_json "$T/out" "any(p['pid'] == $P3 for p in d['processes']) and d['listing'] == 'all'" "--all shows the idle plain process"
assert_json "$T/out" "[set(p['frameworks']) for p in d['processes'] if p['pid'] == $P2] == [{'torch', 'torch_npu', 'ascendcl'}]" "--all shows the idle ML process with its frameworks"
run_nd "$T/out" "$T/err" ps --interval 0 --all --user "$(id -un)" --json
assert_json "$T/out" "any(p['pid'] == $P3 for p in d['processes']) and all(p['user'] == '$(id -un)' for p in d['processes'])" "--user filters by owner"

# ---- secrets in command lines are redacted ----
bash -c 'exec -a "trainer --url=https://bob:s3cretpw@example.com/x HF_TOKEN=hf_abcdefsecret" '"$JOB"' --ready '"$T"'/r5' &
P5=$!
ND_BG_PIDS="$ND_BG_PIDS $P5"
wait_ready "$T/r5"
run_nd "$T/out" "$T/err" ps --pid "$P5" --interval 0
assert_not_contains "$T/out" "s3cretpw" "URL password not shown"
run_nd "$T/out" "$T/err" ps --pid "$P5" --interval 0 --json
assert_not_contains "$T/out" "s3cretpw" "URL password not in JSON"
assert_not_contains "$T/out" "hf_abcdefsecret" "token not in JSON"
assert_json "$T/out" "'example.com' in d['processes'][0]['command']"

# ---- a CPU-bound process: it uses CPU (how much depends on the machine) ----
"$JOB" --spin --ready "$T/r6" &
P6=$!
ND_BG_PIDS="$ND_BG_PIDS $P6"
wait_ready "$T/r6"
run_nd "$T/out" "$T/err" ps --pid "$P6" --interval 1 --busy 0.001 --json
expect_rc 0 "ps of a spinner"
assert_json "$T/out" "d['processes'][0]['cpu_cores'] > 0 and d['cpu_window_s'] >= 1" "the spinner used CPU in the window"
assert_json "$T/out" "d['processes'][0]['verdict'] == 'cpu-only' and d['processes'][0]['verdict_text'].startswith('CPU: ')" "busy, no ML: plain CPU verdict"
assert_json "$T/out" "d['processes'][0]['frameworks'] == [] and d['processes'][0]['devices'] == []"

# A tree: --pid lists the process and its descendants.
run_nd "$T/out" "$T/err" ps --pid $$ --interval 0 --json
assert_json "$T/out" "{$P1, $P3, $P6} <= {p['pid'] for p in d['processes']} and d['processes_total'] == len(d['processes'])" "--pid includes descendants"

finish
