#!/usr/bin/env bash
# npu-doctor snapshot: the document's shape, rank identity from each
# launcher, -o patterns and atomic writes, the text summary, --root device
# files, redaction, and bad usage. Two snapshots of one unchanged node must
# diff as equal (everything that moves by itself is noise).
. "$(dirname "$0")/lib/assert.sh"

# A job environment as torchrun under Slurm on Kubernetes would leave it.
cat >"$T/job.env" <<'EOF'
PATH=/usr/bin:/bin
HOME=/root
RANK=5
LOCAL_RANK=1
WORLD_SIZE=16
SLURM_PROCID=5
SLURM_NODEID=2
SLURM_JOB_ID=88412
SLURMD_NODENAME=node-03
OMPI_COMM_WORLD_RANK=5
PMI_RANK=5
POD_NAME=train-worker-2
POD_NAMESPACE=ml-team
HF_TOKEN=hf_snapshotbasicsecretvalue0042
EOF

run_nd "$T/s.json" "$T/err" snapshot --json --env-file "$T/job.env" --python /usr/bin/python3
expect_rc 0 "snapshot --json"
assert_json "$T/s.json" 'd["schema"] == "npu-doctor/2" and d["command"] == "snapshot"' "schema and command"
assert_json "$T/s.json" 'd["snapshot_version"] == 1 and isinstance(d["findings"], list)' "snapshot version and findings"
assert_json "$T/s.json" 'all(k in d for k in ("identity", "facts", "devices", "device_layer", "device_files", "python", "limits", "env"))' "every section present"
assert_json "$T/s.json" 'd["identity"]["rank"] == 5 and d["identity"]["node_name"] == "node-03"' "rank and node name"
assert_json "$T/s.json" 'd["identity"]["torchrun"] == {"RANK": "5", "LOCAL_RANK": "1", "WORLD_SIZE": "16"}' "torchrun identity"
assert_json "$T/s.json" 'd["identity"]["slurm"]["SLURM_JOB_ID"] == "88412" and d["identity"]["slurm"]["SLURM_NODEID"] == "2"' "slurm identity"
assert_json "$T/s.json" 'd["identity"]["mpi"] == {"OMPI_COMM_WORLD_RANK": "5", "PMI_RANK": "5"}' "mpi identity"
assert_json "$T/s.json" 'd["identity"]["kubernetes"] == {"pod": "train-worker-2", "namespace": "ml-team"}' "kubernetes identity"
assert_json "$T/s.json" 'len(d["identity"]["time"]) == 20 and d["identity"]["time"].endswith("Z")' "UTC time"
assert_json "$T/s.json" 'd["env"]["HOME"] == "/root" and d["env"]["HF_TOKEN"].startswith("<redacted:")' "env kept, token redacted"
# Debian's python3-torch is seen by /usr/bin/python3: its version is recorded.
assert_json "$T/s.json" '"torch" in d["python"]["packages"] and d["python"]["executable"].startswith("/usr/bin/python3")' "python packages from --python"
assert_json "$T/s.json" '[l["vendor"] for l in d["device_layer"]] == ["ascend", "nvidia", "rocm"] and all(l["status"] in ("ok", "no-library", "failed", "timed-out", "crashed") for l in d["device_layer"])' "device layer status per vendor, every vendor of the table"
assert_json "$T/s.json" 'isinstance(d["limits"]["nofile"], int)' "open-file limit recorded"
# Everything check gathers at that level is in "facts", grouped as check groups it.
assert_json "$T/s.json" 'all(g in d["facts"] for g in ("host", "ascend", "nvidia", "environment", "python", "distributed"))' "check's fact groups"
assert_json "$T/s.json" 'd["facts"]["host"]["cpus"] >= 1 and d["facts"]["environment"]["variables"]["RANK"] == "5"' "check's facts filled in"
assert_json "$T/s.json" 'd["level"] == 1 and isinstance(d["findings"], list)' "level 1 by default"
assert_not_contains "$T/s.json" "snapshotbasicsecretvalue" "planted token absent"

# The diff fixtures must stay shaped like what snapshot really writes.
FXS=${ND_FIXTURES:?}/snapshots/founding/good.json
if python3 - "$T/s.json" "$FXS" <<'PY'
import json, sys
real, fx = (json.load(open(f)) for f in sys.argv[1:3])
problems = []
if set(real) != set(fx):
    problems.append("top-level keys: real %s, fixture %s" % (sorted(real), sorted(fx)))
if set(real["facts"]) != set(fx["facts"]):
    problems.append("fact groups: real %s, fixture %s" % (sorted(real["facts"]), sorted(fx["facts"])))
for g in ("host", "ascend", "nvidia", "python", "distributed", "environment", "check"):
    if g in real["facts"] and set(real["facts"][g]) - set(fx["facts"].get(g, {})):
        problems.append("facts.%s keys missing from the fixture: %s" % (g, sorted(set(real["facts"][g]) - set(fx["facts"][g]))))
for sec in ("identity", "python", "limits"):
    if set(real[sec]) - set(fx[sec]) - {"kubernetes", "mpi", "torchrun", "slurm", "rank"}:
        problems.append("%s keys missing from the fixture: %s" % (sec, sorted(set(real[sec]) - set(fx[sec]))))
print("\n".join("    | " + p for p in problems))
sys.exit(1 if problems else 0)
PY
then pass "fixture snapshots are shaped like real ones"; else fail "fixture snapshots drifted from real ones (regenerate with tests/fixtures/snapshots/generate.py)"; fi

# --env-from PID: the environment of a running process.
env -i PATH=/usr/bin:/bin PLANTED_VISIBLE=yes-4242 HF_TOKEN=hf_envfromsecretvalue00000042 sleep 30 &
ND_BG_PIDS=$!
sleep 0.3
run_nd "$T/p.json" "$T/err" snapshot --json --env-from "$ND_BG_PIDS"
expect_rc 0 "snapshot --env-from PID"
assert_json "$T/p.json" 'd["env"]["PLANTED_VISIBLE"] == "yes-4242" and d["env"]["HF_TOKEN"].startswith("<redacted:")' "--env-from reads the process's environment"
assert_not_contains "$T/p.json" "envfromsecretvalue" "--env-from: token redacted"
kill "$ND_BG_PIDS" 2>/dev/null
wait "$ND_BG_PIDS" 2>/dev/null
ND_BG_PIDS=""
run_nd "$T/o" "$T/err" snapshot --env-from 999999999
expect_rc 64 "--env-from above pid_max"
run_nd "$T/o" "$T/err" snapshot --env-from "$(nd_free_pid)"
expect_rc 66 "--env-from a process that does not exist"

# No python on the job's PATH: a fact of the snapshot, not a failure.
printf 'PATH=/nonexistent\n' >"$T/nopy.env"
run_nd "$T/np.json" "$T/err" snapshot --json --env-file "$T/nopy.env"
expect_rc 0 "snapshot without python"
assert_json "$T/np.json" 'd["python"]["error"] == "python3 not found on the job'"'"'s PATH"' "missing python recorded"

# --level 2: the same document, with check's import probe (Debian's torch).
# Two snapshots must agree: a generous deadline, so that a loaded CI host
# importing torch slowly does not make one of them a timeout.
run_nd "$T/l2.json" "$T/err" snapshot --json --level 2 --timeout 600 --env-file "$T/job.env" --python /usr/bin/python3
expect_rc 0 "snapshot --level 2"
assert_json "$T/l2.json" 'd["level"] == 2 and "python" in d["facts"]' "level 2 recorded"
# Level 2 measures import times: a second run differs only in noise.
run_nd "$T/l2b.json" "$T/err" snapshot --json --level 2 --timeout 600 --env-file "$T/job.env" --python /usr/bin/python3
run_nd "$T/d2" "$T/err" diff "$T/l2.json" "$T/l2b.json"
expect_rc 0 "two level-2 snapshots of one node are equal"
assert_contains "$T/d2" "no differences"

# Not a terminal and no -o: JSON by default; --text forces the summary.
"$ND" snapshot --env-file "$T/job.env" >"$T/default.out" 2>/dev/null
assert_contains "$T/default.out" '"schema": "npu-doctor/2"' "JSON is the default off a terminal"
run_nd "$T/text" "$T/err" snapshot --text --env-file "$T/job.env"
expect_rc 0 "snapshot --text"
assert_contains "$T/text" "snapshot of " "summary names the host"
assert_contains "$T/text" ", rank 5" "summary names the rank"
assert_contains "$T/text" "pod ml-team/train-worker-2" "summary names the pod"
assert_contains "$T/text" "14 variables, 1 with secrets redacted" "summary counts redactions"
assert_not_contains "$T/text" "snapshotbasicsecretvalue" "summary leaks nothing"

# -o expands %n (node) and %r (rank) and writes atomically; stdout says where.
mkdir "$T/out"
run_nd "$T/o" "$T/err" snapshot --env-file "$T/job.env" -o "$T/out/snap-%n-r%r.json"
expect_rc 0 "snapshot -o pattern"
assert_contains "$T/o" "wrote $T/out/snap-node-03-r5.json" "-o prints the expanded name"
assert_json "$T/out/snap-node-03-r5.json" 'd["command"] == "snapshot"' "-o file is a snapshot"
leftover=$(find "$T/out" -name '*tmp*' | wc -l)
if [ "$leftover" -eq 0 ]; then pass "no temporary file left"; else fail "temporary file left behind"; fi
run_nd "$T/o" "$T/err" snapshot -q --env-file "$T/job.env" -o "$T/out/quiet.json"
expect_rc 0 "snapshot -q -o"
if [ -s "$T/o" ]; then fail "-q printed something"; else pass "-q prints nothing"; fi

# --root: device files are read under the root.
mkdir -p "$T/root/dev"
for f in davinci0 davinci1 davinci_manager devmm_svm hisi_hdc null; do : >"$T/root/dev/$f"; done
run_nd "$T/r.json" "$T/err" snapshot --json --root "$T/root" --env-file "$T/job.env"
expect_rc 0 "snapshot --root"
assert_json "$T/r.json" 'd["device_files"] == ["/dev/davinci0", "/dev/davinci1", "/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]' "device files under --root"

# Two snapshots of the same node: nothing but noise differs.
run_nd "$T/a.json" "$T/err" snapshot --json --root "$T/root" --env-file "$T/job.env"
run_nd "$T/b.json" "$T/err" snapshot --json --root "$T/root" --env-file "$T/job.env"
run_nd "$T/d" "$T/err" diff "$T/a.json" "$T/b.json"
expect_rc 0 "two snapshots of one node are equal"
assert_contains "$T/d" "no differences" "diff says so"

# Bad usage: one clear line, the documented exit codes.
run_nd "$T/o" "$T/err" snapshot --level 3
expect_rc 64 "--level 3"
assert_contains "$T/err" "--level must be 1 or 2"
run_nd "$T/o" "$T/err" snapshot --frobnicate
expect_rc 64 "unknown option"
run_nd "$T/o" "$T/err" snapshot -o 'snap-%x.json' --env-file "$T/job.env"
expect_rc 64 "unknown -o pattern"
assert_contains "$T/err" "%x"
run_nd "$T/o" "$T/err" snapshot --redact '(' --env-file "$T/job.env"
expect_rc 64 "bad --redact regex"
NPU_DOCTOR_REDACT='([' "$ND" snapshot --env-file "$T/job.env" >"$T/o" 2>"$T/err"
rc=$?
expect_rc 64 "invalid NPU_DOCTOR_REDACT"
assert_contains "$T/err" "NPU_DOCTOR_REDACT"
run_nd "$T/o" "$T/err" snapshot --root "$T/nonexistent"
expect_rc 66 "--root that does not exist"
run_nd "$T/o" "$T/err" snapshot --env-file "$T/nonexistent.env"
expect_rc 66 "--env-file that does not exist"
run_nd "$T/o" "$T/err" snapshot --env-file "$T/job.env" -o "$T/no/such/dir/s.json"
expect_rc 73 "unwritable -o"
assert_contains "$T/err" "$T/no/such/dir/s.json"
if [ "$(wc -l <"$T/err")" -eq 1 ]; then pass "one line on stderr"; else fail "stderr has $(wc -l <"$T/err") lines"; fi

finish
