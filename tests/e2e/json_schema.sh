#!/usr/bin/env bash
# Every command's JSON against its JSON Schema (docs/schema/, draft 2020-12),
# checked by the real jsonschema module: check on a healthy and a broken
# simulated Ascend host (and with the device layer at level 2), ps on
# simulated Ascend and NVIDIA hosts, run's summary and report.json, watch,
# explain on a corpus log, snapshot, diff (two files and a cluster), rules.
# First the validator must be able to fail: a unit or type change is caught.
. "$(dirname "$0")/lib/assert.sh"

# Debian's python3-jsonschema lives in the system python (not a pyenv one).
PY=/usr/bin/python3
S=${ND_SRC:?}/docs/schema
V() { "$PY" "$ND_SRC/tests/helpers/validate_json.py" "$S" "$@"; }
if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
  fail "python3-jsonschema is missing (scripts/install-deps.sh installs it)"
  finish
  exit 1
fi

# valid SCHEMA FILE... : every file must validate.
valid() {
  local schema=$1
  shift
  if V "$schema" "$@" >"$T/v.out" 2>&1; then pass "$schema: $(wc -l <"$T/v.out") document(s) valid"
  else fail "$schema rejects real output:"; sed -n '1,20p' "$T/v.out" | sed 's/^/    | /'; fi
}
# invalid SCHEMA FILE WHAT: the file must be refused.
invalid() {
  if V "$1" "$2" >"$T/v.out" 2>&1; then fail "$1 accepts $3"
  else pass "$1 refuses $3"; fi
}
# mutate IN OUT PYSTMT: a copy of IN changed by PYSTMT (the document is d).
mutate() {
  "$PY" - "$1" "$2" "$3" <<'PYM'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYM
}

R=$ND_FIXTURES/roots/ascend-910b-cann80
E=$ND_FIXTURES/env
sim_910b_host '[ascend.device.2]
aicore_util = 37
hbm_used_mb = 2048'
export NPU_DOCTOR_ACL_LIB=$ND_SIM/libascendcl.so NPU_DOCTOR_CUDA_LIB=$T/none

# check: healthy, broken, and level 2 (the device layer in the facts).
run_nd "$T/check-ok.json" "$T/err" check --json --root "$R" --env-file "$E/ascend-cann80-loaded.env"
expect_rc 0 "check on a healthy host"
run_nd "$T/check-bad.json" "$T/err" check --json --root "$R" --env-file "$E/plain.env"
expect_rc 2 "check on a broken host"
run_nd "$T/check-l2.json" "$T/err" check --json --level 2 --env-file "$E/ascend-cann80-loaded.env" --python "$PY"
assert_json "$T/check-l2.json" 'len(d["facts"]["devices"]["vendors"][0]["devices"]) == 8' "level 2 lists the 8 simulated NPUs"
# Level 3 where no device answers: the facts say why no bandwidth was measured.
NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_ACL_LIB=$T/none \
  run_nd "$T/check-l3.json" "$T/err" check --json --level 3 --root "$ND_FIXTURES/roots/container-no-driver" \
  --env-file "$E/plain.env" --timeout 20
assert_json "$T/check-l3.json" '"bandwidth_skipped" in d["facts"]["devices"]' "level 3 without devices says why"
valid check.schema.json "$T/check-ok.json" "$T/check-bad.json" "$T/check-l2.json" "$T/check-l3.json"
# Every fixture root (Ascend, CUDA, Kunpeng, a container without driver), and
# the distributed settings of a CUDA job: facts of every group.
n=0
for r in "$ND_FIXTURES"/roots/*/; do
  n=$((n + 1))
  "$ND" check --json --root "$r" --env-file "$E/plain.env" >"$T/root-$n.json" 2>/dev/null
done
"$ND" check --json --root "$ND_FIXTURES/roots/cuda-host" --env-file "$E/cuda-distributed-bad.env" \
  >"$T/root-dist.json" 2>/dev/null
valid check.schema.json "$T"/root-*.json

# ps: Ascend (one device busy), then NVIDIA with a listed process.
run_nd "$T/ps-asc.json" "$T/err" ps --json --interval 0
assert_json "$T/ps-asc.json" '[x["utilization_ratio"] for x in d["devices"]][2] == 0.37' "ps: npu:2 at 37 % is 0.37"
sleep 120 &
JOB=$!
# shellcheck disable=SC2034 # read by nd_cleanup (lib/assert.sh) at exit
ND_BG_PIDS=$JOB
printf '[nvidia]\ndevices = 2\nname = NVIDIA H200\ngpu_util = 40\nmem_total_mb = 143771\nmem_used_mb = 4096\nproc = %d 1 4096\n' \
  "$JOB" >"$T/nv.ini"
ND_SIM_STATE=$T/nv.ini NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$ND_SIM/libnvidia-ml.so.1 \
  "$ND" ps --json --pid "$JOB" >"$T/ps-nv.json" 2>"$T/err"
assert_json "$T/ps-nv.json" "any(p['pid'] == $JOB and p['devices'] for p in d['processes'])" "ps: the NVIDIA job is listed with its device"
valid ps.schema.json "$T/ps-asc.json" "$T/ps-nv.json"

# run: a short job's summary and report.json; watch on a running process.
run_nd "$T/run.out" "$T/err" run --interval 0.2 --json-summary="$T/run.json" --report "$T/rep" -- \
  sh -c 'echo step 1; sleep 1; echo done'
expect_rc 0 "run of a short job"
run_nd "$T/watch.out" "$T/err" watch --pid "$JOB" --for 2 --interval 0.5 --json-summary="$T/watch.json" \
  --report "$T/wrep"
valid run.schema.json "$T/run.json" "$T/rep/report.json" "$T/watch.json" "$T/wrep/report.json"

# explain: a corpus log with a known root cause.
LOG=$(grep -l 'ERR' "$ND_SRC"/tests/corpus/*.txt | head -n 1)
run_nd "$T/explain.json" "$T/err" explain --json "$LOG"
assert_json "$T/explain.json" 'len(d["findings"]) > 0' "explain found something in $(basename "$LOG")"
valid explain.schema.json "$T/explain.json"

# snapshot, then diff of two snapshots and of the cluster fixtures.
run_nd "$T/snap.json" "$T/err" snapshot --json --env-file "$E/ascend-cann80-loaded.env" --python "$PY"
expect_rc 0 "snapshot"
valid snapshot.schema.json "$T/snap.json" "$ND_FIXTURES"/snapshots/founding/*.json
run_nd "$T/diff2.json" "$T/err" diff --json "$T/snap.json" "$ND_FIXTURES/snapshots/founding/good.json"
run_nd "$T/diffn.json" "$T/err" diff --json "$ND_FIXTURES"/snapshots/cluster/*.json
assert_json "$T/diffn.json" 'any("majority" in x for x in d["differences"])' "cluster diff has majorities"
valid diff.schema.json "$T/diff2.json" "$T/diffn.json"

# rules list and its summary.
run_nd "$T/rules.json" "$T/err" rules list --json
run_nd "$T/rules-sum.json" "$T/err" rules list --summary --json
valid rules.schema.json "$T/rules.json" "$T/rules-sum.json"

# The schemas catch what they are for: a percent, an old name, a number for a
# word, a fraction of a byte, a missing envelope key, an old snapshot.
mutate "$T/ps-asc.json" "$T/m1.json" 'd["devices"][2]["utilization_ratio"] = 37'
invalid ps.schema.json "$T/m1.json" "a percent in utilization_ratio"
mutate "$T/ps-asc.json" "$T/m2.json" 'd["devices"][0]["utilization"] = 0'
invalid ps.schema.json "$T/m2.json" "the old key utilization"
mutate "$T/snap.json" "$T/m3.json" 'd["device_layer"][0]["status"] = 0'
invalid snapshot.schema.json "$T/m3.json" "a status number"
mutate "$T/check-ok.json" "$T/m4.json" 'd["facts"]["host"]["memory_total_bytes"] = 1.5'
invalid check.schema.json "$T/m4.json" "a fractional byte count"
mutate "$T/run.json" "$T/m5.json" 'del d["version"]'
invalid run.schema.json "$T/m5.json" "a document without the tool version"
mutate "$T/run.json" "$T/m6.json" 'd["facts"]["job"]["on_device_fraction"] = 0.5'
invalid run.schema.json "$T/m6.json" "a *_fraction key"
invalid snapshot.schema.json "$ND_FIXTURES/snapshots/schema1/good.json" "a schema 1 snapshot (diff reads it, snapshot no longer writes it)"

finish
