#!/usr/bin/env bash
# Which of 16 nodes is different? One node has older firmware, one lacks
# /dev/davinci3: both are named as outliers, and no other node is, although
# every node differs in times, ranks, pids and device samples.
. "$(dirname "$0")/lib/assert.sh"

FX=${ND_FIXTURES:?}/snapshots/cluster
files=("$FX"/snap-node-*.json)
if [ "${#files[@]}" -eq 16 ]; then pass "16 fixture snapshots"; else fail "${#files[@]} fixture snapshots"; fi

run_nd "$T/out" "$T/err" diff "${files[@]}"
expect_rc 1 "outliers found"
assert_contains "$T/out" "16 snapshots: 2 differ from the majority (node-07, node-12)" "summary names both nodes"
assert_contains "$T/out" "node-07: firmware 7.3.0.1.231 (others: 7.5.0.1.129)" "older firmware reads as the outlier against the rest"
assert_contains "$T/out" "node-12: missing device file /dev/davinci3 (others have it)" "missing device file"
assert_contains "$T/out" "node-12: missing device ascend:3 (others have it)" "missing device"
for n in 01 02 03 04 05 06 08 09 10 11 13 14 15 16; do
  assert_not_contains "$T/out" "node-$n" "node-$n not named"
done
# Vendor stack first, then devices.
if [ "$(grep -n 'node-07' "$T/out" | head -1 | cut -d: -f1)" -lt "$(grep -n 'node-12: missing' "$T/out" | head -1 | cut -d: -f1)" ]; then
  pass "firmware (vendor stack) listed before devices"
else
  fail "firmware not listed before devices"
fi

run_nd "$T/j" "$T/err" diff --json "${files[@]}"
expect_rc 1 "--json"
assert_json "$T/j" 'sorted({o for x in d["differences"] for o in x["outliers"]}) == sorted(f for f in d["files"] if f.endswith(("snap-node-07.json", "snap-node-12.json")))' "JSON outliers are exactly node-07 and node-12"
assert_json "$T/j" 'all("majority" in x and len(x["values"]) == 16 for x in d["differences"])' "every difference has a majority and 16 values"
assert_json "$T/j" '[f.rsplit("/", 1)[1] for f in d["outlier_files"]] == ["snap-node-07.json", "snap-node-12.json"]' "outlier_files lists the two nodes"
assert_json "$T/j" 'any(x["key"] == "facts.ascend.firmware.version" and x["majority"] == "7.5.0.1.129" and x["category"] == "vendor" for x in d["differences"])' "firmware difference in JSON"
assert_json "$T/j" 'any(x["key"] == "device_files" and x["entry"] == "/dev/davinci3" and x["majority"] == "present" for x in d["differences"])' "device file difference in JSON"

# Without the two odd nodes, the cluster is uniform.
others=()
for f in "${files[@]}"; do case "$f" in *node-07*|*node-12*) ;; *) others+=("$f");; esac; done
run_nd "$T/o2" "$T/err" diff "${others[@]}"
expect_rc 0 "14 uniform nodes: no differences"
assert_contains "$T/o2" "14 snapshots: 0 differ from the majority"
assert_contains "$T/o2" "no differences"

# A node whose image lacks the CANN environment: one line per variable.
mkdir "$T/img"
for n in 01 02 03 04 05 06 08; do cp "$FX/snap-node-$n.json" "$T/img/"; done
python3 - "$FX/../founding/bad.json" "$T/img/snap-node-09.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["identity"].update(hostname="node-09", node_name="node-09")
json.dump(d, open(sys.argv[2], "w"))
PY
run_nd "$T/img.out" "$T/err" diff "$T/img"/*.json
expect_rc 1 "a node without the CANN environment"
assert_contains "$T/img.out" "8 snapshots: 1 differ from the majority (node-09)" "only node-09 named"
assert_contains "$T/img.out" "node-09: ASCEND_HOME_PATH (unset) (others: /usr/local/Ascend/ascend-toolkit/latest)" "its missing ASCEND_HOME_PATH"
assert_contains "$T/img.out" "node-09: missing PYTHONPATH entries /usr/local/Ascend/ascend-toolkit/latest/python/site-packages, /usr/local/Ascend/ascend-toolkit/latest/opp/built-in/op_impl/ai_core/tbe (others have them)" "its PYTHONPATH entries on one line"
assert_contains "$T/img.out" "node-09: missing LD_LIBRARY_PATH entries /usr/local/Ascend/driver/lib64, " "its LD_LIBRARY_PATH entries on one line"
if [ "$(grep -c 'LD_LIBRARY_PATH' "$T/img.out")" -eq 1 ]; then pass "one LD_LIBRARY_PATH line"; else fail "LD_LIBRARY_PATH spread over several lines"; fi

# --all shows the noise (times, ranks), with no majority where all differ.
run_nd "$T/all" "$T/err" diff --all "${files[@]}"
assert_contains "$T/all" "noise (--all)" "--all lists noise"
assert_contains "$T/all" "identity.time" "--all shows times"
finish
