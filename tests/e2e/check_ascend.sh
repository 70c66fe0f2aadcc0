#!/usr/bin/env bash
# check on Ascend fixture roots: the seed case (CANN installed, env not
# loaded), PYTHONPATH overwritten, a torch_npu/torch mismatch, a healthy
# host in both CANN layouts, a container without driver libraries, and the
# environment's other traps (devlib stubs, mixed versions, visible devices).
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots
E=$ND_FIXTURES/env
C80=$R/ascend-910b-cann80

# 1. The seed case: exit 2, env.cann-not-loaded, the fix names the real set_env.sh.
run_nd "$T/out" "$T/err" check --root "$C80" --env-file "$E/plain.env"
expect_rc 2 "seed case: CANN installed, env not loaded"
assert_contains "$T/out" "[env.cann-not-loaded]"
assert_contains "$T/out" "fix: source /usr/local/Ascend/ascend-toolkit/set_env.sh" "fix names the set_env.sh of the root"
assert_contains "$T/out" "ascend_toolkit_install.info:2: CANN 8.0.0 installed" "evidence names the version file and line"
assert_contains "$T/out" "ASCEND_HOME_PATH and ASCEND_OPP_PATH are not set"
run_nd "$T/j" "$T/err" check --json --root "$C80" --env-file "$E/plain.env"
expect_rc 2 "seed case --json"
assert_json "$T/j" 'd["schema"] == "npu-doctor/2" and d["command"] == "check"'
assert_json "$T/j" 'any(f["id"] == "env.cann-not-loaded" and f["category"] == "env-not-loaded" and f["severity"] == "error" and f["fix"][0] == "source /usr/local/Ascend/ascend-toolkit/set_env.sh" for f in d["findings"])' \
  "seed finding in the documented JSON shape"
assert_json "$T/j" 'all(k in d["facts"] for k in ["host","ascend","nvidia","environment","python","distributed","devices"])' \
  "facts grouped host/ascend/nvidia/environment/python/distributed/devices"
assert_json "$T/j" 'd["facts"]["ascend"]["cann"]["version"] == "8.0.0" and d["facts"]["ascend"]["cann"]["layout"] == "classic"'
assert_json "$T/j" 'd["facts"]["ascend"]["device_files"]["davinci"] == list(range(8))'
assert_json "$T/j" 'd["facts"]["environment"]["cann_loaded"] is False'
run_nd "$T/q" "$T/err" check --quiet --root "$C80" --env-file "$E/plain.env"
expect_rc 2 "--quiet keeps the exit code"
assert_contains "$T/q" "[env.cann-not-loaded]"
assert_not_contains "$T/q" "✓" "--quiet prints problems only"

# 6. The same host with set_env.sh sourced: healthy, exit 0.
run_nd "$T/out" "$T/err" check --root "$C80" --env-file "$E/ascend-cann80-loaded.env"
expect_rc 0 "healthy 910B host, CANN 8.0 classic"
assert_contains "$T/out" "✓ CANN environment loaded"
assert_contains "$T/out" "✓ firmware 7.5.0.1.129 (driver accepts 7.0.0 to 7.5.99)"
assert_contains "$T/out" "✓ torch 2.4.0+cpu, torch_npu 2.4.0.post2, CANN 8.0.0"
assert_contains "$T/out" "no problems found"

# 2. PYTHONPATH overwritten after set_env.sh: tbe is unreachable.
run_nd "$T/out" "$T/err" check --root "$C80" --env-file "$E/ascend-cann80-pythonpath-overwritten.env"
expect_rc 2 "PYTHONPATH overwritten"
assert_contains "$T/out" "[env.tbe-unreachable]"
assert_contains "$T/out" "PYTHONPATH=/workspace/src"
assert_contains "$T/out" "fix: export PYTHONPATH=/usr/local/Ascend/ascend-toolkit/latest/python/site-packages:\$PYTHONPATH"
assert_not_contains "$T/out" "[env.cann-not-loaded]" "the rest of the env is loaded: not the seed finding"

# 3. A torch_npu built for another torch.
run_nd "$T/j" "$T/err" check --json --root "$C80" --env-file "$E/ascend-cann80-old-torch-npu.env"
expect_rc 2 "torch_npu/torch mismatch"
assert_json "$T/j" 'any(f["id"] == "compat.torch-npu-torch" and f["category"] == "version-mismatch" and "pip install torch==2.1.0" in f["fix"] for f in d["findings"])'
assert_json "$T/j" 'd["facts"]["python"]["packages"]["torch_npu"]["version"] == "2.1.0.post10"'

# Devlib stubs, mixed toolkits, visible devices out of range, debug switches; secrets redacted.
run_nd "$T/j" "$T/err" check --json --root "$C80" --env-file "$E/ascend-cann80-messy.env"
expect_rc 2 "messy environment"
for id in env.stub-libs-on-path env.cann-mixed-versions env.visible-devices env.debug-switches; do
  assert_json "$T/j" "any(f['id'] == '$id' for f in d['findings'])" "messy env: $id"
done
assert_not_contains "$T/j" "hunter2" "--json redacts secret values"
assert_json "$T/j" 'd["facts"]["environment"]["variables"]["TORCH_HUB_TOKEN"].startswith("<redacted:")'

# The CANN 8.5+ layout: latest -> ../cann -> cann-9.0.0.
C85=$R/ascend-cann85
run_nd "$T/out" "$T/err" check --wide --root "$C85" --env-file "$E/plain.env"
expect_rc 2 "CANN 8.5 layout, env not loaded"
assert_contains "$T/out" "CANN 9.0.0 at /usr/local/Ascend/cann (8.5+ layout -> /usr/local/Ascend/cann-9.0.0)"
assert_contains "$T/out" "fix: source /usr/local/Ascend/cann/set_env.sh"
run_nd "$T/out" "$T/err" check --root "$C85" --env-file "$E/ascend-cann85-loaded.env"
expect_rc 0 "CANN 8.5 layout, env loaded"

# A container that got the device files but not the driver.
run_nd "$T/out" "$T/err" check --root "$R/container-no-driver" --env-file "$E/plain.env"
expect_rc 2 "container with device files but no driver libraries"
assert_contains "$T/out" "[ascend.devices-without-driver]"
assert_contains "$T/out" "-v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro"
assert_contains "$T/out" "in a container (docker)"

finish
