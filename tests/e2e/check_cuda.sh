#!/usr/bin/env bash
# check on a CUDA host fixture: an empty CUDA_VISIBLE_DEVICES, a CPU-only
# torch, a torch built for a newer CUDA than the driver, distributed settings,
# and a docker inspect document as the environment.
. "$(dirname "$0")/lib/assert.sh"

R=$ND_FIXTURES/roots/cuda-host
E=$ND_FIXTURES/env

run_nd "$T/out" "$T/err" check --root "$R" --env-file "$E/cuda-plain.env"
expect_rc 0 "healthy CUDA host"
assert_contains "$T/out" "✓ driver 535.104.05"
assert_contains "$T/out" "✓ torch CUDA 12.1, driver 535.104.05 supports CUDA 12.2"

# 4. CUDA_VISIBLE_DEVICES="" hides every GPU.
run_nd "$T/j" "$T/err" check --json --root "$R" --env-file "$E/cuda-visible-empty.env"
expect_rc 2 "empty CUDA_VISIBLE_DEVICES"
assert_json "$T/j" 'any(f["id"] == "env.visible-devices" and f["category"] == "no-device" and "hides every GPU" in f["title"] for f in d["findings"])'
run_nd "$T/out" "$T/err" check --root "$R" --env-file "$E/docker-inspect.json"
expect_rc 2 "docker inspect JSON as --env-file"
assert_contains "$T/out" "CUDA_VISIBLE_DEVICES=\"\" hides every GPU"

# 5. A CPU-only torch on a GPU host.
run_nd "$T/j" "$T/err" check --json --root "$R" --env-file "$E/cuda-cpu-torch.env"
expect_rc 2 "CPU-only torch on a GPU host"
assert_json "$T/j" 'any(f["id"] == "python.torch-cpu-only" and f["category"] == "cpu-fallback" and f["severity"] == "error" for f in d["findings"])'
assert_json "$T/j" 'd["facts"]["python"]["packages"]["torch"]["cpu_only"] is True'

# torch for CUDA 12.4 on a 12.2 driver: runs only through minor-version compatibility.
run_nd "$T/out" "$T/err" check --root "$R" --env-file "$E/cuda-torch-too-new.env"
expect_rc 1 "torch CUDA newer than the driver (same major)"
assert_contains "$T/out" "[compat.torch-cuda-driver]"
assert_contains "$T/out" "update the NVIDIA driver to 550.54.14 or newer"

# Distributed settings.
run_nd "$T/j" "$T/err" check --json --root "$R" --env-file "$E/cuda-distributed-bad.env"
expect_rc 2 "broken distributed settings"
for id in dist.partial-vars dist.rank-out-of-range dist.local-rank-no-device dist.master-addr-unresolvable \
          dist.ifname-missing dist.hccl-timeout dist.rank-table-host-missing env.debug-switches; do
  assert_json "$T/j" "any(f['id'] == '$id' for f in d['findings'])" "distributed: $id"
done
run_nd "$T/out" "$T/err" check --root "$R" --env-file "$E/cuda-local-rank-hidden.env"
expect_rc 2 "LOCAL_RANK beyond what CUDA_VISIBLE_DEVICES leaves"
assert_contains "$T/out" "LOCAL_RANK=1 but the job sees 1 device"
run_nd "$T/j" "$T/err" check --json --root "$R" --env-file "$E/cuda-distributed-ok.env"
expect_rc 0 "consistent distributed settings"
assert_json "$T/j" 'd["facts"]["distributed"]["master_addr_resolves"] is True and d["facts"]["distributed"]["rank_table"]["lists_host"] is True'

finish
