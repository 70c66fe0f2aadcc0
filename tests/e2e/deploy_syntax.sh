#!/usr/bin/env bash
# The cluster deploy files (docs/cluster.md): every shell script passes sh -n
# and shellcheck; every manifest parses, with the keys we rely on asserted;
# and the Slurm, MPI and Kubernetes examples really run, against stand-ins for
# srun, mpirun and kubectl that start the real npu-doctor once per "node".
. "$(dirname "$0")/lib/assert.sh"

SRC=${ND_SRC:?}
DEP=$SRC/deploy
export NPU_DOCTOR=$ND

scripts=("$DEP"/slurm/*.sh "$DEP"/slurm/*.sbatch "$DEP"/mpi/*.sh "$DEP"/k8s/*.sh)
for s in "${scripts[@]}"; do
  name=${s#"$SRC"/}
  if sh -n "$s" 2>"$T/shn"; then pass "sh -n $name"; else fail "sh -n $name: $(cat "$T/shn")"; fi
  if shellcheck -s sh "$s" >"$T/sc" 2>&1; then pass "shellcheck $name"; else fail "shellcheck $name"; sed 's/^/    | /' "$T/sc" | head -20; fi
  if [ -x "$s" ]; then pass "$name is executable"; else fail "$name is not executable"; fi
done

# --- Kubernetes manifests -------------------------------------------------
if /usr/bin/python3 - "$DEP/k8s" <<'PY'
import os, sys, yaml
d = sys.argv[1]
bad = []
def check(cond, what):
    print(("ok   - " if cond else "FAIL - ") + what)
    if not cond:
        bad.append(what)

def cmd(c):
    return " ".join(c.get("command", []) + c.get("args", []))

job = list(yaml.safe_load_all(open(os.path.join(d, "training-job-precheck.yaml"))))
check(len(job) == 1 and job[0]["kind"] == "Job" and job[0]["apiVersion"] == "batch/v1", "precheck: one batch/v1 Job")
spec = job[0]["spec"]["template"]["spec"]
init, main = spec["initContainers"][0], spec["containers"][0]
check("npu-doctor check --quiet" in cmd(init), "precheck: init container runs npu-doctor check --quiet")
check(spec["restartPolicy"] == "Never" and job[0]["spec"]["backoffLimit"] == 0, "precheck: a failed check fails the pod, no retry loop")
check(init["image"] == main["image"], "precheck: init container uses the training image")
check(init["env"] == main["env"], "precheck: same environment as the trainer")
check(init["resources"] == main["resources"], "precheck: same device resources as the trainer")
check(init["volumeMounts"] == main["volumeMounts"], "precheck: same mounts as the trainer")
check(any(m["mountPath"] == "/usr/local/Ascend/driver" for m in init["volumeMounts"]), "precheck: driver mounted")
check("huawei.com/Ascend910" in init["resources"]["limits"], "precheck: NPUs requested from the device plugin")
check(cmd(init).split("&&")[0] == cmd(main).split("&&")[0], "precheck: same start-up (set_env.sh) as the trainer")
vols = {v["name"] for v in spec["volumes"]}
check(all(m["name"] in vols for m in init["volumeMounts"]), "precheck: every mount has a volume")

snap = list(yaml.safe_load_all(open(os.path.join(d, "snapshot-job.yaml"))))
check(len(snap) == 1 and snap[0]["kind"] == "Job", "snapshot: one Job")
s = snap[0]["spec"]["template"]["spec"]
c = s["containers"][0]
check(s["nodeName"] == "__NODE__" and "__NODE__" in snap[0]["metadata"]["name"], "snapshot: pinned to the node filled in per Job")
check("npu-doctor snapshot --json" in cmd(c), "snapshot: runs npu-doctor snapshot --json")
env = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") for e in c["env"]}
check(env.get("NODE_NAME") == "spec.nodeName", "snapshot: NODE_NAME from the downward API")
check(env.get("POD_NAME") == "metadata.name" and env.get("POD_NAMESPACE") == "metadata.namespace", "snapshot: pod name and namespace from the downward API")
mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
hp = {v["name"]: v.get("hostPath", {}).get("path") for v in s["volumes"]}
check(hp.get(mounts.get("/dev")) == "/dev", "snapshot: host /dev (davinci*) mounted")
check(hp.get(mounts.get("/usr/local/Ascend/driver")) == "/usr/local/Ascend/driver", "snapshot: driver mounted")
check(s["restartPolicy"] == "Never", "snapshot: runs once")

ds = list(yaml.safe_load_all(open(os.path.join(d, "watch-daemonset.yaml"))))
kinds = [x["kind"] for x in ds]
check(kinds == ["ConfigMap", "DaemonSet"], "watch: a ConfigMap and a DaemonSet")
cm, dset = ds
script = open(os.path.join(d, "npu-doctor-watch.sh")).read()
check(cm["data"]["npu-doctor-watch.sh"] == script, "watch: the ConfigMap holds npu-doctor-watch.sh verbatim")
check("watch --pid" in script and "--metrics-file" in script, "watch: the loop runs watch --pid with --metrics-file")
p = dset["spec"]["template"]["spec"]
check(p.get("hostPID") is True, "watch: hostPID (it watches the training pods' processes)")
w = p["containers"][0]
check(cmd(w).endswith("/scripts/npu-doctor-watch.sh"), "watch: the container runs the loop")
mounts = {m["mountPath"]: m["name"] for m in w["volumeMounts"]}
vols = {v["name"]: v for v in p["volumes"]}
tf = [e["value"] for e in w["env"] if e["name"] == "NPU_DOCTOR_TEXTFILE"][0]
tfdir = os.path.dirname(tf)
check(tfdir in mounts and vols[mounts[tfdir]]["hostPath"]["path"] == "/var/lib/node_exporter/textfile_collector",
      "watch: metrics file lands in node_exporter's textfile directory")
check(vols[mounts["/dev"]]["hostPath"]["path"] == "/dev", "watch: host /dev (davinci*) mounted")
check(vols[mounts["/usr/local/Ascend/driver"]]["hostPath"]["path"] == "/usr/local/Ascend/driver", "watch: driver mounted")
check(vols[mounts["/scripts"]]["configMap"]["name"] == cm["metadata"]["name"], "watch: scripts volume is the ConfigMap")
check(dset["spec"]["selector"]["matchLabels"].items() <= dset["spec"]["template"]["metadata"]["labels"].items(),
      "watch: selector matches the pod labels")
sys.exit(1 if bad else 0)
PY
then pass "Kubernetes manifests"; else fail "Kubernetes manifests"; fi

# --- stand-ins for the cluster engines -------------------------------------
mkdir -p "$T/bin"
TK=/usr/local/Ascend/ascend-toolkit/latest
# srun: runs the step once per node, with Slurm's variables; node-03's image
# lacks the CANN environment.
cat >"$T/bin/srun" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift;; *) break;; esac; done
i=1
while [ \$i -le 4 ]; do
  if [ \$i -eq 3 ]; then cann="-u ASCEND_HOME_PATH"; else cann="ASCEND_HOME_PATH=$TK"; fi
  env \$cann SLURMD_NODENAME=node-0\$i SLURM_PROCID=\$((i - 1)) SLURM_NODEID=\$((i - 1)) SLURM_JOB_ID=777 \
      "\$@" || exit 1
  i=\$((i + 1))
done
EOF
# mpirun: skips its own options, then one process per "node".
cat >"$T/bin/mpirun" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in --hostfile|--map-by|-x|-np|-f|-ppn) shift 2;; -*) shift;; *) break;; esac
done
for i in 0 1 2; do NODE_NAME=mpi-node-$i OMPI_COMM_WORLD_RANK=$i "$@" || exit 1; done
EOF
# kubectl: two nodes; apply keeps the manifest; logs runs the Job's snapshot.
cat >"$T/bin/kubectl" <<EOF
#!/bin/sh
case "\$1" in
  get) echo "npu-a npu-b";;
  apply) cat >"$T/applied-\$(date +%s%N).yaml";;
  wait) exit 0;;
  logs) node=\${2#job/npu-doctor-snapshot-}; NODE_NAME=\$node POD_NAME=snap-\$node POD_NAMESPACE=default "$ND" snapshot --json 2>/dev/null;;
  *) exit 1;;
esac
EOF
chmod +x "$T/bin/"*
export PATH="$T/bin:$PATH"

# Slurm: the sbatch script from the docs.
( cd "$T" && SLURM_JOB_ID=777 sh "$DEP/slurm/snapshot-cluster.sbatch" >"$T/sbatch.out" 2>&1 )
rc=$?
expect_rc 0 "snapshot-cluster.sbatch"
for n in 1 2 3 4; do
  assert_json "$T/npu-doctor-snapshots-777/snap-node-0$n.json" "d['identity']['slurm']['SLURMD_NODENAME'] == 'node-0$n'" "sbatch: snap-node-0$n.json from node-0$n"
done
assert_contains "$T/sbatch.out" "4 snapshots: 1 differ from the majority (node-03)" "sbatch: diff names the odd node"
assert_contains "$T/sbatch.out" "node-03: ASCEND_HOME_PATH (unset) (others: $TK)" "sbatch: and why"
assert_json "$T/npu-doctor-snapshots-777/outliers.json" 'd["command"] == "diff" and len(d["differences"]) >= 1' "sbatch: outliers.json written"

# MPI.
run_nd_sh() { "$@" >"$T/sh.out" 2>&1; rc=$?; }
printf 'a slots=1\nb slots=1\nc slots=1\n' >"$T/hosts"
run_nd_sh sh "$DEP/mpi/snapshot-mpirun.sh" "$T/hosts" "$T/mpi-snaps"
expect_rc 0 "snapshot-mpirun.sh"
for n in 0 1 2; do
  assert_json "$T/mpi-snaps/snap-mpi-node-$n.json" "d['identity']['rank'] == $n and d['identity']['mpi']['OMPI_COMM_WORLD_RANK'] == '$n'" "mpirun: rank $n identity"
done
assert_contains "$T/sh.out" "3 snapshots: 0 differ from the majority" "mpirun: diff of uniform nodes"
run_nd_sh sh "$DEP/mpi/snapshot-mpirun.sh"
expect_rc 64 "snapshot-mpirun.sh without a host file"

# Kubernetes: one Job per node, then diff of their logs.
run_nd_sh sh "$DEP/k8s/snapshot-per-node.sh" "accelerator=x" "$T/k8s-snaps"
expect_rc 0 "snapshot-per-node.sh"
n_applied=$(find "$T" -maxdepth 1 -name 'applied-*.yaml' | wc -l)
if [ "$n_applied" -eq 2 ]; then pass "one Job applied per node"; else fail "$n_applied Jobs applied"; fi
if /usr/bin/python3 -c '
import sys, yaml
names = sorted(yaml.safe_load(open(f))["spec"]["template"]["spec"]["nodeName"] for f in sys.argv[1:])
sys.exit(0 if names == ["npu-a", "npu-b"] else 1)' "$T"/applied-*.yaml; then pass "Jobs pinned to npu-a and npu-b"; else fail "Jobs not pinned to the nodes"; fi
assert_json "$T/k8s-snaps/snap-npu-a.json" 'd["identity"]["kubernetes"] == {"pod": "snap-npu-a", "namespace": "default", "node": "npu-a"}' "k8s: identity from the downward API"
assert_contains "$T/sh.out" "no differences" "k8s: diff of the two nodes"

# Slurm prolog: check --quiet decides; warnings pass unless strict; a hang fails.
cat >"$T/bin/fake-nd" <<EOF
#!/bin/sh
echo "\$* ASCEND_HOME_PATH=\${ASCEND_HOME_PATH:-}" >>"$T/fake-nd.args"
echo "x problem"
exit \${FAKE_RC:-0}
EOF
chmod +x "$T/bin/fake-nd"
printf 'export ASCEND_HOME_PATH=/opt/fake-cann\n' >"$T/set_env.sh"
prolog() { NPU_DOCTOR="$T/bin/fake-nd" NPU_DOCTOR_SET_ENV="$T/set_env.sh" "$@" sh "$DEP/slurm/prolog-npu-doctor.sh" >/dev/null 2>&1; rc=$?; }
prolog env FAKE_RC=0; expect_rc 0 "prolog: healthy node"
prolog env FAKE_RC=1; expect_rc 0 "prolog: warnings pass"
prolog env FAKE_RC=1 NPU_DOCTOR_STRICT=1; expect_rc 1 "prolog: warnings fail when strict"
prolog env FAKE_RC=2; expect_rc 1 "prolog: errors refuse the node"
prolog env FAKE_RC=124; expect_rc 1 "prolog: a hung check refuses the node"
assert_contains "$T/fake-nd.args" "check --quiet --fail-on warning ASCEND_HOME_PATH=/opt/fake-cann" "prolog runs check --quiet --fail-on warning with the CANN env loaded"
# A set_env.sh with bash-isms (as CANN's are) must not end the prolog.
printf 'if [[ -n "x" ]]; then arr=(a b); export ASCEND_HOME_PATH=/opt/bashism-cann; fi\n' >"$T/set_env.sh"
prolog env FAKE_RC=0; expect_rc 0 "prolog: a bash-only set_env.sh is fine"
assert_contains "$T/fake-nd.args" "ASCEND_HOME_PATH=/opt/bashism-cann" "prolog: the bash-only set_env.sh was loaded"
NPU_DOCTOR=/nonexistent/npu-doctor sh "$DEP/slurm/prolog-npu-doctor.sh" >/dev/null 2>&1
rc=$?
expect_rc 0 "prolog: npu-doctor missing does not drain the node"
# With the real binary: it runs and decides (this machine has no NPU: 0, 1 or 2 is fine, no crash).
NPU_DOCTOR="$ND" sh "$DEP/slurm/prolog-npu-doctor.sh" >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then pass "prolog with the real npu-doctor (exit $rc)"; else fail "prolog with the real npu-doctor: exit $rc"; fi

# docs/cluster.md names these files and commands.
for f in deploy/slurm/prolog-npu-doctor.sh deploy/slurm/snapshot-cluster.sbatch deploy/mpi/snapshot-mpirun.sh \
         deploy/k8s/training-job-precheck.yaml deploy/k8s/snapshot-job.yaml deploy/k8s/snapshot-per-node.sh \
         deploy/k8s/watch-daemonset.yaml "srun --ntasks-per-node=1 npu-doctor snapshot -o snap-%n.json" \
         "npu-doctor diff snap-*.json" "mpirun --map-by ppr:1:node"; do
  assert_contains "$SRC/docs/cluster.md" "$f" "docs/cluster.md mentions $f"
done
finish
