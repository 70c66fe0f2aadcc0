#!/usr/bin/env bash
# Bad input to run and watch: clear one-line errors and the documented exit
# codes, and nothing started when the outputs cannot be written.
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
run_nd "$T/out" "$T/err" run -- no-such-command-nd
expect_rc 127 "command not found"
assert_contains "$T/err" "no-such-command-nd: command not found"
run_nd "$T/out" "$T/err" run --interval 0 -- true
expect_rc 64 "interval 0"
assert_contains "$T/err" "--interval must be a number of seconds between 0.1 and 60, not '0'"
run_nd "$T/out" "$T/err" run --interval 1e9 -- true
expect_rc 64 "interval 1e9"
run_nd "$T/out" "$T/err" run --window abc -- true
expect_rc 64 "window abc"
assert_contains "$T/err" "between 1 and 86400"
run_nd "$T/out" "$T/err" run --interval 5 --window 6 -- true
expect_rc 64 "window shorter than two intervals"
assert_contains "$T/err" "at least two intervals"
run_nd "$T/out" "$T/err" run
expect_rc 64 "no command"
run_nd "$T/out" "$T/err" run --frobnicate -- true
expect_rc 64 "unknown option"
run_nd "$T/out" "$T/err" run --root "$T/nowhere" -- true
expect_rc 66 "missing --root"

# Unwritable outputs: said before the job starts (the job would create a marker).
touch "$T/file"
run_nd "$T/out" "$T/err" run --report "$T/file/rep" -- touch "$T/started"
expect_rc 73 "--report under a file"
assert_contains "$T/err" "--report $T/file/rep"
run_nd "$T/out" "$T/err" run --metrics-file /nonexistent-dir/x.prom -- touch "$T/started"
expect_rc 73 "--metrics-file in a missing folder"
assert_contains "$T/err" "--metrics-file"
"$ND" run --json-summary -- touch "$T/started" >"$T/out" 2>"$T/err" 3>&-
rc=$?
expect_rc 64 "--json-summary without fd 3"
assert_contains "$T/err" "fd 3"
if [ -e "$T/started" ]; then fail "the job started anyway"; else pass "the job never started"; fi

# fd 3 works, and the job does not inherit it.
"$ND" run --json-summary -- sh -c 'test -e /proc/self/fd/3 && echo has3 || echo no3' >"$T/out" 2>"$T/err" 3>"$T/sum.json"
rc=$?
expect_rc 0 "--json-summary on fd 3"
assert_contains "$T/out" "no3" "the job does not see fd 3"
assert_json "$T/sum.json" "d['command'] == 'run' and d['job']['exit_status'] == 0 and d['findings'] == []"

# Secrets in argv are redacted in the reports.
run_nd "$T/out" "$T/err" run --json-summary="$T/s2.json" -- sh -c 'exit 0' HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456
expect_rc 0 "job with a secret in argv"
assert_not_contains "$T/s2.json" "hf_abcdefghijklmnopqrstuvwxyz123456" "the token is redacted"
assert_not_contains "$T/err" "hf_abcdefghijklmnopqrstuvwxyz123456" "not in the summary either"

# watch
run_nd "$T/out" "$T/err" watch
expect_rc 64 "watch without --pid"
run_nd "$T/out" "$T/err" watch --pid 2000000000
expect_rc 64 "watch --pid above pid_max"
run_nd "$T/out" "$T/err" watch --pid "$(nd_free_pid)"
expect_rc 66 "watch --pid of a missing process"
assert_contains "$T/err" "no such process"
run_nd "$T/out" "$T/err" watch --pid abc
expect_rc 64 "watch --pid abc"
run_nd "$T/out" "$T/err" watch --pid $$ --for 0
expect_rc 64 "watch --for 0"
finish
