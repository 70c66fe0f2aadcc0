#!/usr/bin/env bash
# diff names an outlier node's incompatible pair: node-03 got CANN 8.5.0 on
# the cluster's 24.1.rc2 NPU driver. Its CANN differs from the majority (a
# difference), and the pair is outside CANN 8.5.0's HDK window (a finding).
# A consistent cluster gets no such finding; a pair wrong on every node is
# named once for all of them.
. "$(dirname "$0")/lib/assert.sh"

FX=${ND_FIXTURES:?}/snapshots/cluster
mkdir -p "$T/c"
cp "$FX"/snap-node-0[1-4].json "$T/c/"
python3 - "$T/c/snap-node-03.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["facts"]["ascend"]["cann"]["version"] = "8.5.0"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY

run_nd "$T/out" "$T/err" diff "$T"/c/snap-node-0[1-4].json
expect_rc 1 "differences found"
assert_contains "$T/out" "node-03: CANN 8.5.0 (others: 8.0.0)" "the difference itself"
assert_contains "$T/out" "incompatible versions (per the compatibility tables):"
assert_contains "$T/out" "error: node-03: NPU driver 24.1.rc2 is older than CANN 8.5.0 supports" "the outlier's pair is named"
assert_contains "$T/out" "[compat.cann-driver]"
assert_contains "$T/out" "fix: upgrade the NPU driver and firmware to Ascend HDK 25.5.0"
assert_not_contains "$T/out" "node-01: NPU driver" "healthy nodes are not named"

run_nd "$T/j" "$T/err" diff --json "$T"/c/snap-node-0[1-4].json
expect_rc 1 "--json"
assert_json "$T/j" '[f["id"] for f in d["findings"]] == ["compat.cann-driver"]'
assert_json "$T/j" 'd["findings"][0]["category"] == "version-mismatch" and d["findings"][0]["title"].startswith("node-03: ")'
assert_json "$T/j" 'd["findings"][0]["evidence"][0]["file"].endswith("snap-node-03.json")'

# A node whose runtime needs a newer driver HAL than its driver has (the install's own files).
cp "$FX"/snap-node-0[5-7].json "$T/c/"
python3 - "$T/c/snap-node-06.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["facts"]["ascend"]["cann"]["required_driver_ascendhal_version"] = "[7.35.27],[7.35.29]"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
run_nd "$T/out" "$T/err" diff "$T"/c/snap-node-0[5-7].json
assert_contains "$T/out" "error: node-06: CANN 8.0.0 needs driver HAL 7.35.27 or newer, but driver 24.1.rc2 has HAL 7.35.23  [ascend.cann-driver-hal]"

# The untouched cluster: no compatibility finding.
run_nd "$T/j" "$T/err" diff --json "$FX"/snap-node-0[1-2].json
assert_json "$T/j" 'd["findings"] == []' "a consistent, compatible cluster has no findings"

# Every node on the wrong pair: one finding for all, though nothing differs.
for n in 01 02; do
  python3 - "$T/c/snap-node-$n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["facts"]["ascend"]["cann"]["version"] = "8.5.0"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
done
run_nd "$T/out" "$T/err" diff "$T"/c/snap-node-0[1-3].json
assert_contains "$T/out" "error: every node: NPU driver 24.1.rc2 is older than CANN 8.5.0 supports"
finish
