#!/usr/bin/env bash
# `npu-doctor run -- sleep 600` with --hang-after 5: a hang warning while it
# runs; then Ctrl-C (SIGINT to npu-doctor, started in the background of this
# script, where bash ignores SIGINT) ends the job: exit status 130.
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
"$ND" run --interval 0.5 --hang-after 5 --json-summary="$T/sum.json" -- sleep 600 >"$T/out" 2>"$T/err" &
nd=$!
ND_BG_PIDS=$nd
for _ in $(seq 1200); do grep -q "hang.no-progress" "$T/err" && break; sleep 0.1; done
assert_contains "$T/err" "npu-doctor: warning: The job looks stuck" "hang reported while the job runs"
# A way to get the Python stacks that exists on this machine (py-spy only when installed).
if command -v py-spy >/dev/null; then W="py-spy dump --pid"; elif command -v gdb >/dev/null; then W="gdb -p"; else W="pip install py-spy"; fi
assert_contains "$T/err" "$W" "the stack tool that is there ($W)"
assert_contains "$T/err" "threads: 1 thread S in" "the thread's state and wait channel"
kill -INT "$nd"
wait "$nd"
rc=$?
ND_BG_PIDS=
expect_rc 130 "Ctrl-C ends the job: 130"
assert_json "$T/sum.json" "d['job']['exit_status'] == 130 and [f['category'] for f in d['findings'] if f['severity'] != 'info'] == ['hang']"
assert_json "$T/sum.json" "[f['id'] for f in d['findings'] if f['severity'] == 'info'] == ['exit.interrupted']" "Ctrl-C is a note"
assert_json "$T/sum.json" "d['findings'][0]['at_s'] >= 5"
pgid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["pid"])' "$T/sum.json")
if ps -eo pgid= | awk -v g="$pgid" '$1 == g' | grep -q .; then fail "processes of the job are left"
else pass "nothing of the job is left"; fi
finish
