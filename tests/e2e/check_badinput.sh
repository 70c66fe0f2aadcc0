#!/usr/bin/env bash
# check on bad input: each case gives a finding or one clear line on stderr,
# never a crash, a hang or a stack trace.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env

one_line() { # FILE DESCRIPTION: stderr is exactly one line
  if [ "$(wc -l <"$1")" -eq 1 ]; then pass "$2: one line on stderr"; else fail "$2: stderr is not one line:"; cat "$1"; fi
}
usage_lines() { # FILE DESCRIPTION: a usage error is one line and the "try" line
  if [ "$(wc -l <"$1")" -eq 2 ] && [ "$(tail -n 1 "$1")" = "try 'npu-doctor check --help'" ]; then
    pass "$2: one line and the try line"; else fail "$2: stderr is not one line and the try line:"; cat "$1"; fi
}
free_pid=$(nd_free_pid)

run_nd "$T/out" "$T/err" check --root /no/such/root
expect_rc 66 "nonexistent --root"
one_line "$T/err" "nonexistent --root"
assert_contains "$T/err" "/no/such/root"

run_nd "$T/out" "$T/err" check --env-file /no/such/env
expect_rc 66 "missing --env-file"
one_line "$T/err" "missing --env-file"

run_nd "$T/out" "$T/err" check --env-from 999999999
expect_rc 64 "--env-from out of range"
run_nd "$T/out" "$T/err" check --env-from "$free_pid"
expect_rc 66 "--env-from a process that does not exist"
one_line "$T/err" "missing process"

run_nd "$T/out" "$T/err" check --python /no/such/python
expect_rc 66 "--python that does not exist"
one_line "$T/err" "missing python"

run_nd "$T/out" "$T/err" check --level 7
expect_rc 64 "bad --level"
run_nd "$T/out" "$T/err" check --frobnicate
expect_rc 64 "unknown option"
usage_lines "$T/err" "unknown option"
run_nd "$T/out" "$T/err" check extra-arg
expect_rc 64 "stray argument"

# --env-from a live process: this shell, with a marker variable.
ND_MARKER_FOR_TEST=1 CUDA_VISIBLE_DEVICES='' sleep 30 &
pid=$!
export ND_BG_PIDS=$pid   # assert.sh kills it at exit
# Until the child has exec'd, /proc/PID/environ is still the shell's: wait for the marker (hang guard 10 s).
for _ in $(seq 100); do
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -q '^ND_MARKER_FOR_TEST=1$' && break
  sleep 0.1
done
run_nd "$T/out" "$T/err" check --root "$R/cuda-host" --env-from "$pid"
expect_rc 2 "--env-from PID reads that process's environment"
assert_contains "$T/out" "the job's environment: pid $pid"
assert_contains "$T/out" "hides every GPU"
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null

# An env file with NUL bytes and a 1 MB value.
{ printf 'PATH=/usr/bin:/bin\nASCEND_HOME_PATH=/x\000garbage\nPYTHONPATH='; head -c 1048576 /dev/zero | tr '\0' 'a'; printf '\nHOME=/root\n'; } > "$T/weird.env"
run_nd "$T/out" "$T/err" check --root "$R/ascend-910b-cann80" --env-file "$T/weird.env"
expect_rc 2 "env file with NUL bytes and a 1 MB value"
assert_contains "$T/out" "[env.cann-partly-loaded]"
if [ "$(wc -c <"$T/out")" -lt 20000 ]; then pass "a 1 MB value is not echoed whole"; else fail "output is $(wc -c <"$T/out") bytes"; fi

# Binary garbage and unreadable files in the version files of a copied root.
cp -a "$R/ascend-910b-cann80" "$T/root"
head -c 4096 /dev/urandom > "$T/root/usr/local/Ascend/driver/version.info"
printf '\000\001\002ELF' >> "$T/root/usr/local/Ascend/driver/version.info"
rm -f "$T/root/usr/local/Ascend/firmware/version.info"; mkdir "$T/root/usr/local/Ascend/firmware/version.info"
run_nd "$T/out" "$T/err" check --root "$T/root" --env-file "$E/ascend-cann80-loaded.env"
if [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then pass "garbage version files: exit $rc"; else fail "garbage version files: exit $rc"; fi
assert_contains "$T/out" "[ascend.driver-version-unreadable]"
assert_contains "$T/out" "binary data"
assert_contains "$T/out" "[ascend.firmware-version-unreadable]"
assert_not_contains "$T/err" "Sanitizer" "no sanitizer report"

# A symlink loop where the toolkit should be.
rm -rf "$T/root/usr/local/Ascend/ascend-toolkit/latest"
ln -s loop2 "$T/root/usr/local/Ascend/ascend-toolkit/latest"; ln -s latest "$T/root/usr/local/Ascend/ascend-toolkit/loop2"
run_nd "$T/out" "$T/err" check --root "$T/root" --env-file "$E/plain.env"
if [ "$rc" -le 2 ]; then pass "symlink loop: exit $rc"; else fail "symlink loop: exit $rc"; fi
assert_contains "$T/out" "no CANN toolkit"

finish
