#!/usr/bin/env bash
# The real-hardware check of the NVIDIA path, for a session lent
# an NVIDIA GPU: in one call, under 5 minutes, it builds npu-doctor, runs
# `check --level 3`, and asserts that `ps` sees a PyTorch job on the GPU as
# on-device and a CPU-only one (CUDA_VISIBLE_DEVICES=) as cpu-only, and that
# `run` reports the CPU-only job as cpu-fallback. Prints a table; logs go
# under $OUT/gpu-check when OUT is set (else under the build folder).
# Usage: bash tests/device/gpu-check.sh        (from anywhere; root not needed
# unless build packages are missing)
# Exit: 0 every check passed; 1 a check failed; 2 no Python with a CUDA torch.
set -u

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${ND_GPU_BUILD:-$SRC/build-gpu}
if [ -n "${OUT:-}" ]; then LOG=$OUT/gpu-check; else LOG=$BUILD/gpu-check-logs; fi
mkdir -p "$LOG"
ND=$BUILD/npu-doctor
START=$SECONDS

declare -a R_NAME=() R_STATUS=() R_DETAIL=()
FAILED=0
record() { # name PASS|FAIL detail
    R_NAME+=("$1"); R_STATUS+=("$2"); R_DETAIL+=("$3")
    [ "$2" = PASS ] || FAILED=1
    printf '[%3ds] %-4s %s: %s\n' $((SECONDS - START)) "$2" "$1" "$3"
}

print_table() {
    echo
    echo "== gpu-check results ($((SECONDS - START)) s; logs in $LOG) =="
    printf '%-26s %-5s %s\n' CHECK RESULT DETAIL
    for i in "${!R_NAME[@]}"; do
        printf '%-26s %-5s %s\n' "${R_NAME[$i]}" "${R_STATUS[$i]}" "${R_DETAIL[$i]}"
    done
}

# Background jobs we started, killed by pid on exit.
JOBS=()
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    for p in "${JOBS[@]}"; do
        kill "$p" 2>/dev/null
    done
    wait 2>/dev/null
}
trap cleanup EXIT

# ---- 1. build tools --------------------------------------------------------
missing=""
for t in cmake cc make pkg-config; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ] || ! pkg-config --exists libhs jansson inih zlib 2>/dev/null; then
    echo "installing build dependencies (missing:${missing:- libraries})"
    if timeout 150 sh "$SRC/scripts/install-deps.sh" build >"$LOG/install.log" 2>&1; then
        record deps PASS "installed:${missing:- libraries}"
    else
        record deps FAIL "scripts/install-deps.sh build failed (see install.log)"
        print_table
        exit 1
    fi
else
    record deps PASS "cmake, cc and libraries present"
fi

# ---- 2. build --------------------------------------------------------------
build() {
    cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$LOG/cmake.log" 2>&1 &&
        timeout 240 cmake --build "$BUILD" -j "$(nproc)" --target npu-doctor >"$LOG/build.log" 2>&1
}
if build; then
    record build PASS "$("$ND" --version 2>/dev/null | head -1)"
else
    record build FAIL "$(grep -h -m1 -E 'error:|CMake Error' "$LOG/build.log" "$LOG/cmake.log" 2>/dev/null | cut -c1-110)"
    print_table
    exit 1
fi

# ---- 3. what the machine says -------------------------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
    timeout 30 nvidia-smi >"$LOG/nvidia-smi.txt" 2>&1
    GPU_NAME=$(timeout 30 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    record nvidia-smi PASS "${GPU_NAME:-no name} ($(timeout 30 nvidia-smi -L 2>/dev/null | wc -l) GPU(s))"
else
    GPU_NAME=""
    record nvidia-smi FAIL "nvidia-smi not found: is this the GPU machine?"
fi

# ---- 4. check --level 3 ------------------------------------------------------
timeout 120 "$ND" check --level 3 >"$LOG/check.txt" 2>&1
rc=$?
timeout 120 "$ND" check --level 3 --json >"$LOG/check.json" 2>"$LOG/check.json.err"
jrc=$?
# 0/1/2 are verdicts (clean, warnings, errors); anything else is our failure.
if [ $rc -le 2 ] && [ $jrc -le 2 ]; then
    # Level 3 on a working GPU ends with bandwidth figures from the CUDA smoke test.
    bw=$(grep -m1 -E 'GB/s' "$LOG/check.txt" | sed 's/^ *//' | cut -c1-70)
    if [ -n "$bw" ]; then
        record "check --level 3" PASS "exit $rc; $bw"
    else
        record "check --level 3" FAIL "exit $rc, no GB/s figure: the CUDA smoke test did not complete"
    fi
else
    record "check --level 3" FAIL "exit $rc (text) / $jrc (json); see check.txt"
fi
grep -i -E 'nvidia|cuda|gpu|GB/s' "$LOG/check.txt" | head -12 | sed 's/^/    /'

# ---- 5. a Python with a CUDA-enabled torch ---------------------------------------
PY=""
tried=""
cands=(python3 python /usr/bin/python3 /usr/local/bin/python3 /opt/conda/bin/python /opt/venv/bin/python
    "${HOME:-/root}/.venv/bin/python")
mapfile -t -O "${#cands[@]}" cands < <(compgen -c python3. 2>/dev/null | grep -E '^python3\.[0-9]+$' | sort -u)
for cand in "${cands[@]}"; do
    p=$(command -v "$cand" 2>/dev/null) || continue
    case " $tried " in *" $p "*) continue ;; esac
    tried="$tried $p"
    if timeout 90 "$p" -c 'import sys, torch; sys.exit(0 if torch.version.cuda and torch.cuda.is_available() else 3)' \
        >>"$LOG/python-probe.log" 2>&1; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    echo "tried:$tried" >>"$LOG/python-probe.log"
    record "python + CUDA torch" FAIL "none among $(wc -w <<<"$tried") interpreters (python-probe.log)"
    echo "gpu-check: NO Python with a CUDA-enabled torch on this machine; the ps/run checks cannot run." >&2
    print_table
    exit 2
fi
record "python + CUDA torch" PASS "$PY: torch $("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null)"

cat >"$LOG/gpu_job.py" <<'EOF'
# Allocates on the GPU and computes until killed (or SECONDS pass).
import sys, time, torch
secs = float(sys.argv[1])
dev = torch.device("cuda:0")
a = torch.randn(4096, 4096, device=dev)
b = torch.randn(4096, 4096, device=dev)
hold = torch.empty(1 << 29, dtype=torch.uint8, device=dev)  # 512 MiB held
c = a @ b
torch.cuda.synchronize()
print("READY", torch.cuda.get_device_name(0), flush=True)
end = time.time() + secs
while time.time() < end:
    c = a @ b
    torch.cuda.synchronize()
EOF
cat >"$LOG/cpu_job.py" <<'EOF'
# Keeps the CPU busy with torch and never touches a GPU.
import sys, time, torch
secs = float(sys.argv[1])
assert not torch.cuda.is_available(), "CUDA_VISIBLE_DEVICES= should hide every GPU"
a = torch.randn(1024, 1024)
b = torch.randn(1024, 1024)
print("READY cpu", flush=True)
end = time.time() + secs
while time.time() < end:
    c = a @ b
EOF
cat >"$LOG/cpu_train.py" <<'EOF'
# A small training loop that silently runs on the CPU (no device visible).
import sys, time, torch
secs = float(sys.argv[1])
dev = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(256, 512, device=dev)
y = torch.randint(0, 10, (256,), device=dev)
end, step = time.time() + secs, 0
while time.time() < end:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    step += 1
    if step % 200 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
EOF
cat >"$LOG/verdict.py" <<'EOF'
# Prints "<verdict> <devices as JSON>" for one pid of a `ps --json` document.
import json, sys
doc = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
for p in doc.get("processes", []):
    if p.get("pid") == pid:
        print(p.get("verdict"), json.dumps(p.get("devices", []), separators=(",", ":")))
        break
else:
    print("absent []")
EOF

# Starts "$@" in the background with its output in $1.log; waits for READY.
# Sets JOB_PID. Returns non-zero when it never got ready.
start_job() {
    local name=$1 t=0
    shift
    "$@" >"$LOG/$name.log" 2>&1 &
    JOB_PID=$!
    JOBS+=("$JOB_PID")
    while [ $t -lt 120 ]; do
        grep -q READY "$LOG/$name.log" 2>/dev/null && return 0
        kill -0 "$JOB_PID" 2>/dev/null || return 1
        sleep 1
        t=$((t + 1))
    done
    return 1
}

# ---- 6. ps on a GPU job --------------------------------------------------------
if start_job gpu_job "$PY" "$LOG/gpu_job.py" 90; then
    timeout 60 "$ND" ps --pid "$JOB_PID" >"$LOG/ps-gpu.txt" 2>&1
    timeout 60 "$ND" ps --pid "$JOB_PID" --json >"$LOG/ps-gpu.json" 2>"$LOG/ps-gpu.err"
    v=$("$PY" "$LOG/verdict.py" "$LOG/ps-gpu.json" "$JOB_PID" 2>>"$LOG/ps-gpu.err")
    verdict=${v%% *}
    devs=${v#* }
    if [ "$verdict" = on-device ] && printf '%s' "$devs" | grep -q '"nvidia"'; then
        record "ps: GPU job on-device" PASS "pid $JOB_PID $devs"
    else
        record "ps: GPU job on-device" FAIL "pid $JOB_PID verdict '${verdict:-none}' devices ${devs:-?}"
    fi
    sed 's/^/    /' "$LOG/ps-gpu.txt" | head -8
    kill "$JOB_PID" 2>/dev/null
else
    record "ps: GPU job on-device" FAIL "the GPU job did not start: $(tail -1 "$LOG/gpu_job.log")"
fi

# ---- 7. ps on a CPU-only job -----------------------------------------------------
if start_job cpu_job env CUDA_VISIBLE_DEVICES='' "$PY" "$LOG/cpu_job.py" 60; then
    sleep 2 # let it build up CPU time for the sampling window
    timeout 60 "$ND" ps --pid "$JOB_PID" >"$LOG/ps-cpu.txt" 2>&1
    timeout 60 "$ND" ps --pid "$JOB_PID" --json >"$LOG/ps-cpu.json" 2>"$LOG/ps-cpu.err"
    v=$("$PY" "$LOG/verdict.py" "$LOG/ps-cpu.json" "$JOB_PID" 2>>"$LOG/ps-cpu.err")
    verdict=${v%% *}
    if [ "$verdict" = cpu-only ]; then
        record "ps: CPU job cpu-only" PASS "pid $JOB_PID verdict cpu-only"
    else
        record "ps: CPU job cpu-only" FAIL "pid $JOB_PID verdict '${verdict:-none}' devices ${v#* }"
    fi
    sed 's/^/    /' "$LOG/ps-cpu.txt" | head -8
    kill "$JOB_PID" 2>/dev/null
else
    record "ps: CPU job cpu-only" FAIL "the CPU job did not start: $(tail -1 "$LOG/cpu_job.log")"
fi

# ---- 8. run catches the CPU fallback ------------------------------------------------
CUDA_VISIBLE_DEVICES='' timeout 150 "$ND" run --window 10 --json-summary="$LOG/run-summary.json" -- \
    "$PY" "$LOG/cpu_train.py" 35 >"$LOG/run.txt" 2>&1
rc=$?
found=$("$PY" - "$LOG/run-summary.json" 2>>"$LOG/run.txt" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
print(" ".join(f"{f['id']}({f['severity']})" for f in doc.get("findings", []) if f.get("category") == "cpu-fallback"))
EOF
)
if [ -n "$found" ]; then
    record "run: cpu-fallback" PASS "exit $rc; $found"
else
    record "run: cpu-fallback" FAIL "no cpu-fallback finding (exit $rc); see run.txt, run-summary.json"
fi
grep -i -m3 -E 'fallback|cpu' "$LOG/run.txt" | sed 's/^/    /'

print_table
exit $FAILED
