#!/usr/bin/env bash
# check --level 2: the Python import probe against Debian's real torch (no
# accelerator here: it must say so plainly), a probe that hangs or crashes,
# and the device layer through the simulated DCMI/ACL libraries.
. "$(dirname "$0")/lib/assert.sh"

PY=/usr/bin/python3

# 7. Debian's python3-torch: torch imports, no accelerator, said plainly; no error.
run_nd "$T/out" "$T/err" check --level 2 --python "$PY"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then pass "level 2 on this machine exits 0 or 1 ($rc)"; else fail "level 2 exit $rc"; cat "$T/out"; fi
assert_contains "$T/out" "✓ torch 1.13"
assert_contains "$T/out" "no accelerator: jobs started here run on the CPU"
assert_contains "$T/out" "✓ tensor op on cpu works"
run_nd "$T/j" "$T/err" check --level 2 --json --python "$PY"
assert_json "$T/j" 'd["facts"]["python"]["imports"]["result"]["torch"]["ok"] is True and d["facts"]["python"]["imports"]["result"]["cuda"]["available"] is False'
assert_json "$T/j" 'any(f["id"] == "python.no-accelerator" and f["severity"] == "info" for f in d["findings"])'
assert_json "$T/j" 'd["facts"]["python"]["packages"]["torch"]["version"].startswith("1.13")'

# A probe that hangs is a finding of its own, within --timeout.
printf '#!/bin/sh\nsleep 60\n' > "$T/hang-python"; chmod +x "$T/hang-python"
run_nd "$T/out" "$T/err" check --level 2 --timeout 1 --python "$T/hang-python"
expect_rc 2 "hanging python"
assert_contains "$T/out" "[python.probe-timeout]"
assert_contains "$T/out" "timed out after 1 s"

# A probe that crashes.
printf '#!/bin/sh\nkill -SEGV $$\n' > "$T/crash-python"; chmod +x "$T/crash-python"
run_nd "$T/out" "$T/err" check --level 2 --python "$T/crash-python"
expect_rc 2 "crashing python"
assert_contains "$T/out" "[python.probe-crashed]"
assert_contains "$T/out" "SIGSEGV"

# A broken python: prints garbage, exits 1.
printf '#!/bin/sh\necho "Fatal Python error: init_fs_encoding" >&2\nexit 1\n' > "$T/broken-python"; chmod +x "$T/broken-python"
run_nd "$T/out" "$T/err" check --level 2 --python "$T/broken-python"
expect_rc 2 "broken python"
assert_contains "$T/out" "[python.probe-failed]"
assert_contains "$T/out" "Fatal Python error: init_fs_encoding"

# A python whose torch import fails: the error is explained (built-in table or knowledge base).
mkdir -p "$T/site/torch"
printf 'raise ImportError("libascendcl.so: cannot open shared object file: No such file or directory")\n' > "$T/site/torch/__init__.py"
PYTHONPATH="$T/site" run_nd "$T/out" "$T/err" check --level 2 --python "$PY"
expect_rc 2 "import torch fails"
assert_contains "$T/out" "libascendcl.so: cannot open shared object file"

# The device layer through the simulators: two 910B, the smoke test passes.
if [ -e "$ND_SIM/libdcmi.so" ] && [ -e "$ND_SIM/libascendcl.so" ]; then
  cat > "$T/state" <<'ST'
[ascend]
driver_version = 24.1.rc2
devices = 2
chip_name = 910B3
hbm_total_mb = 65536
[acl]
devices = 2
ST
  export ND_SIM_STATE="$T/state" NPU_DOCTOR_DCMI_LIB="$ND_SIM/libdcmi.so" NPU_DOCTOR_ACL_LIB="$ND_SIM/libascendcl.so"
  run_nd "$T/j" "$T/err" check --level 2 --json --python "$PY"
  assert_json "$T/j" 'any(v["vendor"] == "ascend" and len(v["devices"]) == 2 and v["devices"][0]["name"] == "910B3" for v in d["facts"]["devices"]["vendors"])' \
    "level 2 reads the devices through the device layer"
  assert_json "$T/j" 'any(s["vendor"] == "ascend" and s["passed"] for s in d["facts"]["devices"]["smoke_tests"])' "smoke test passes"
  run_nd "$T/out" "$T/err" check --level 1 --python "$PY"
  assert_not_contains "$T/out" "910B3" "level 1 makes no device calls"
  # ASCEND_RT_VISIBLE_DEVICES checked against the devices the library reports.
  ASCEND_RT_VISIBLE_DEVICES=3 run_nd "$T/out" "$T/err" check --level 2 --python "$PY"
  expect_rc 2 "visible device beyond the 2 reported"
  assert_contains "$T/out" "ASCEND_RT_VISIBLE_DEVICES=3 names device 3, but there are only 2"
  # Level 3 adds bandwidth per device (which device is slow is timing: not asserted here).
  run_nd "$T/out" "$T/err" check --level 3 --python "$PY"
  assert_contains "$T/out" "device 1: host->device" "level 3 prints bandwidth per device"
  # A device busy with another user's process (only where we can start one as another user).
  if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups sleep 60 &
    other=$!
    export ND_BG_PIDS="${ND_BG_PIDS:-} $other"
    for _ in $(seq 100); do   # until setpriv has switched user (hang guard 10 s)
      grep -q '^Uid:[[:space:]]*65534' "/proc/$other/status" 2>/dev/null && break
      sleep 0.1
    done
    printf '[ascend]\ndevices = 2\nproc = %s 1 2048\n[acl]\ndevices = 2\n' "$other" > "$T/state"
    run_nd "$T/out" "$T/err" check --level 2 --python "$PY"
    assert_contains "$T/out" "[devices.busy-other-user]"
    assert_contains "$T/out" "pid $other (uid 65534) on device 1"
    kill "$other" 2>/dev/null
  fi
  # A driver that refuses: dcmi_init -8005.
  printf '[ascend]\ndevices = 2\nfail = dcmi_init -8005\n' > "$T/state"
  run_nd "$T/out" "$T/err" check --level 2 --python "$PY"
  expect_rc 2 "dcmi_init -8005"
  assert_contains "$T/out" "-8005"
  unset ND_SIM_STATE NPU_DOCTOR_DCMI_LIB NPU_DOCTOR_ACL_LIB
else
  fail "simulated libraries not built in $ND_SIM"
fi

# A simulated GPU: Debian's CPU-only torch there is an error; NVML code 18 is explained.
if [ -e "$ND_SIM/libnvidia-ml.so.1" ] && [ -e "$ND_SIM/libcuda.so.1" ]; then
  printf '[nvidia]\ndriver_version = 535.104.05\ncuda_driver_version = 12020\ndevices = 1\nname = NVIDIA H200\n' > "$T/state"
  export ND_SIM_STATE="$T/state" NPU_DOCTOR_NVML_LIB="$ND_SIM/libnvidia-ml.so.1" NPU_DOCTOR_CUDA_LIB="$ND_SIM/libcuda.so.1"
  run_nd "$T/j" "$T/err" check --level 2 --json --python "$PY"
  expect_rc 2 "CPU-only torch with a GPU present"
  assert_json "$T/j" 'any(f["id"] == "python.torch-cpu-only" for f in d["findings"]) and any(f["id"] == "python.cuda-unavailable" for f in d["findings"])'
  assert_json "$T/j" 'any(s["vendor"] == "nvidia" and s["passed"] for s in d["facts"]["devices"]["smoke_tests"])'
  printf '[nvidia]\ndevices = 1\nfail = nvmlInit_v2 18\n' > "$T/state"
  run_nd "$T/out" "$T/err" check --level 2 --python "$PY"
  expect_rc 2 "NVML 18"
  assert_contains "$T/out" "nvmlInit_v2 returned 18"
  unset ND_SIM_STATE NPU_DOCTOR_NVML_LIB NPU_DOCTOR_CUDA_LIB
else
  fail "simulated libraries not built in $ND_SIM"
fi

finish
