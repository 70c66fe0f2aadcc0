#!/usr/bin/env bash
# The device count query, the Ascend container runtime's hook, DCMI and the
# OPP check name what the log says (rules/hangfam-forms.rules): a failed
# device count is a missing device unless the log shows the libraries could
# not be loaded, the OPP check leads the device start failure after it, and
# a tiling library that would not load leads the inner error it causes.
. "$(dirname "$0")/lib/assert.sh"

first() { # JSON -> "id category" of the first finding, or "none"
  python3 -c 'import json,sys
f=json.load(open(sys.argv[1])).get("findings") or []
print("%s %s" % (f[0]["id"], f[0]["category"]) if f else "none")' "$1"
}
expect_first() { # LOG WANT DESCRIPTION
  run_nd "$T/out" "$T/err" explain --json "$1"
  got=$(first "$T/out")
  if [ "$got" = "$2" ]; then pass "$3"; else fail "$3: got '$got', wanted '$2'"; fi
}

printf '%s\n' '[INFO] TSDAEMON(1,python) start' \
  '[ERROR] TSDAEMON(1,python):2024-01-01-00:00:00.000.000 [TsdClient] get device count failed, errorCode [87]' >"$T/count.log"
expect_first "$T/count.log" "ascend.hangfam.device-count-failed no-device" "a failed device count is a missing device"

printf '%s\n' 'ImportError: libascend_hal.so: cannot open shared object file: No such file or directory' \
  '[ERROR] ASCENDCL(1,python) get device count failed, runtime result = 507899.' >"$T/countlib.log"
run_nd "$T/out" "$T/err" explain --json "$T/countlib.log"
got=$(first "$T/out")
case "$got" in
  *" env-not-loaded") pass "a failed device count after a library that would not load is the environment" ;;
  *) fail "a failed device count after a library that would not load: got '$got', wanted env-not-loaded" ;;
esac
assert_not_contains "$T/out" "ascend.hangfam.device-count-failed" "the device count rule stays quiet next to a missing library"

printf '%s\n' 'docker: Error response from daemon: failed to create task for container: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running prestart hook #0: exit status 255, stdout: , stderr: runc start prestart-hook ...verify parameters valid and parse runtime optionssetup container config ...do mountingPlease check the write permission!failed to mount src: /usr/local/bin/npu-smi.failed to mount dev.' >"$T/hook.log"
expect_first "$T/hook.log" "ascend.hangfam.container-hook-failed no-device" "the Ascend runtime hook failing leaves the container without the NPU"

printf '%s\n' 'RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:152 NPU function error: c10_npu::SetDevice(device_id_), error code is 507033' \
  '[Error]: Failed to start the device.' \
  'E30006: 2025-11-19-11:14:58.516.606 Failed to verify the OPP' \
  '        TraceBack (most recent call last):' \
  '        Start aicpu executor failed, retCode=0x7020009 devId=0[FUNC:DeviceRetain][FILE:runtime.cc][LINE:3810]' >"$T/opp.log"
expect_first "$T/opp.log" "ascend.hangfam.opp-verify-failed version-mismatch" "the OPP check leads the device start failure it caused"

printf '%s\n' '[ERROR] RUNTIME(1,python):2024-01-01-00:00:00.000.000 [stream.cc:1] Stream Synchronize timeout, device_id=0, stream_id=1' >"$T/sync.log"
expect_first "$T/sync.log" "ascend.hangfam.stream-sync-timeout-forms hang" "the runtime's stream sync timeout is a hang"

printf '%s\n' '[WARNING] OP(1,python):2024-01-01-00:00:00.000.000 Load op tiling so failed, so path: /usr/local/Ascend/ascend-toolkit/latest/opp/built-in/op_impl/ai_core/tbe/op_tiling/liboptiling.so' \
  'RuntimeError: call aclnnAdd failed, detail:EZ9999: Inner Error!' \
  'RuntimeError: The Inner error is reported as above. The process exits for this inner error' >"$T/tiling.log"
expect_first "$T/tiling.log" "env.cann-opp-package-missing env-not-loaded" "a tiling library that would not load leads the inner error after it"

printf '%s\n' 'Get device count: 8' 'DCMI initialized, 8 devices found' 'stream synchronize done in 3 ms' >"$T/quiet.log"
expect_first "$T/quiet.log" "none" "healthy device and stream lines stay quiet"

finish
