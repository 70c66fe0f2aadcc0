#!/usr/bin/env bash
# check --report-issue: one fenced Markdown block with the collect_env facts
# and ours (CANN, devices, findings, vendor variables), secrets redacted,
# nothing that can close the fence early, and short.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env
cat "$E/plain.env" >"$T/job.env"
cat >>"$T/job.env" <<'ENV'
ASCEND_AUTH_TOKEN=s3cr3t-value-0123456789
HCCL_IF_URL=http://alice:hunter2pass@10.0.0.1:8080/x
ASCEND_NOTE=look```here
ENV
run_nd "$T/o" "$T/e" check --report-issue --root "$R/ascend-910b-cann80" --env-file "$T/job.env"
expect_rc 2 "the exit status is check's own"
assert_contains "$T/o" "CANN toolkit:  8.0.0 in /usr/local/Ascend/ascend-toolkit/latest" "CANN details"
assert_contains "$T/o" "Ascend driver: 24.1.rc2, firmware 7.5.0.1.129"
assert_contains "$T/o" "error   env.cann-not-loaded: CANN 8.0.0 is installed but its environment is not loaded" "findings by id"
assert_contains "$T/o" "Packages:      torch 2.4.0+cpu, torch_npu 2.4.0.post2" "the Python stack"
assert_contains "$T/o" "Kernel:        " "the kernel"
assert_contains "$T/o" "ASCEND_AUTH_TOKEN=<redacted:" "a secret variable is redacted"
assert_not_contains "$T/o" "s3cr3t-value" "the secret's value is gone"
assert_not_contains "$T/o" "hunter2pass" "a URL password is gone"
assert_contains "$T/o" "HCCL_IF_URL=http://alice:" "the rest of the URL stays"
# Exactly one fence opens and one closes; a value with backticks cannot add one.
fences=$(grep -c '^```' "$T/o")
if [ "$fences" -eq 2 ]; then pass "one fenced block"; else fail "$fences fence lines"; fi
if [ "$(sed -n 2p "$T/o")" = '```text' ] && [ "$(tail -n 1 "$T/o")" = '```' ]; then pass "the block is the whole output"
else fail "block not at the edges"; cat "$T/o"; fi
assert_contains "$T/o" "ASCEND_NOTE=look'''here" "backticks from the machine are neutralised"
lines=$(wc -l <"$T/o")
if [ "$lines" -le 40 ]; then pass "short: $lines lines"; else fail "too long: $lines lines"; fi
long=$(awk 'length($0) > 320' "$T/o" | wc -l)
if [ "$long" -eq 0 ]; then pass "no line runs on"; else fail "$long very long lines"; fi

# The collect_env facts from the toolkit fixture.
run_nd "$T/o" "$T/e" check --report-issue --root "$R/cuda-toolkit" --env-file "$E/cuda-plain.env"
assert_contains "$T/o" "OS:            Ubuntu 22.04.4 LTS"
assert_contains "$T/o" "CPU:           Intel(R) Xeon(R) Platinum 8480+"
assert_contains "$T/o" "CUDA toolkit:  12.4.1 in /usr/local/cuda"
assert_contains "$T/o" "cuDNN:         9.1.0"
assert_contains "$T/o" "ROCm:          6.1.2-119 (/opt/rocm-6.1.2)"
run_nd "$T/o" "$T/e" check --report-issue --root "$R/kunpeng-openeuler" --env-file "$E/plain.env"
assert_contains "$T/o" "CPU:           HiSilicon Kunpeng-920 (0x48/0xd01)"
assert_contains "$T/o" "OS:            openEuler 22.03 (LTS-SP1)"

# Devices at level 2 (simulated 910B host).
sim_910b_host
run_nd "$T/o" "$T/e" check --report-issue --level 2 --root "$R/ascend-910b-cann80" --env-file "$E/ascend-cann80-loaded.env"
assert_contains "$T/o" "Devices:       8 x ascend 910B3, 64.0 GiB" "devices from the device layer"

run_nd "$T/o" "$T/e" check --report-issue --json
expect_rc 64 "--report-issue with --json"
run_nd "$T/o" "$T/e" check --help
assert_contains "$T/o" "--report-issue" "--help lists --report-issue"
finish
