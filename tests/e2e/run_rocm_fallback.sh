#!/usr/bin/env bash
# The founding case on a simulated ROCm host, and its healthy twin: 8 idle
# MI300X GPUs; a job that computes on the CPU with a CPU-only torch mapped
# (no HIP library) gets cpu-fallback naming the ROCm build it lacks; a job
# that maps libamdhip64/libtorch_hip and is on ROCm SMI's process list with
# a busy GPU gets no finding.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

export NPU_DOCTOR_RSMI_LIB="$ND_SIM/librocm_smi64.so"
export NPU_DOCTOR_DCMI_LIB="$T/none/libdcmi.so" NPU_DOCTOR_NVML_LIB="$T/none/libnvidia-ml.so.1"
export ND_SIM_STATE="$T/state.ini"
printf '[rocm]\ndevices = 8\nname = AMD Instinct MI300X\nbusy_pct = 0\nvram_total_mb = 196592\nvram_used_mb = 0\n' >"$T/state.ini"

# Files named like the libraries a process maps: only the base name counts.
mkdir -p "$T/lib"
for l in libtorch.so libtorch_cpu.so libtorch_hip.so libamdhip64.so.6; do printf 'x' >"$T/lib/$l"; done
JOBBIN=$ND_HELPERS/footprint_job

# A job: a process mapping the given libraries spins for 8 s, then the job
# ends by itself with status 0. With ONDEV=1 ROCm SMI lists it on a busy GPU 0.
cat >"$T/job.sh" <<SH
#!/usr/bin/env bash
args=()
for l in "\$@"; do args+=(--map "$T/lib/\$l"); done
"$JOBBIN" --spin --max-seconds 60 "\${args[@]}" &
pid=\$!
if [ "\${ONDEV:-0}" = 1 ]; then
  # proc lines belong to [rocm]; rename over the old file so the simulator sees it.
  { printf '[rocm]\nproc = %d 0 30000\n' "\$pid"; cat "\$ND_SIM_STATE"; printf '[rocm.device.0]\nbusy_pct = 93\nvram_used_mb = 30000\n'; } >"\$ND_SIM_STATE.new"
  mv "\$ND_SIM_STATE.new" "\$ND_SIM_STATE"
fi
sleep 8
kill "\$pid"
wait "\$pid" 2>/dev/null
exit 0
SH
chmod +x "$T/job.sh"

ONDEV=0 HIP_VISIBLE_DEVICES= "$ND" run --interval 0.5 --window 3 --warmup 1 --json-summary="$T/cpu.json" \
  -- "$T/job.sh" libtorch.so libtorch_cpu.so >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "run returns the CPU job's own status"
F="[f for f in d['findings'] if f['id'] == 'fallback.cpu-fallback'][0]"
assert_json "$T/cpu.json" "${F}['severity'] == 'error' and '8 ROCm GPUs sit idle' in ${F}['title']" "cpu-fallback: 8 ROCm GPUs sit idle"
assert_json "$T/cpu.json" "any('not loaded: torch built for ROCm' in e['text'] for e in ${F}['evidence'])" "evidence: no HIP library mapped"
assert_json "$T/cpu.json" "any('8 x rocm AMD Instinct MI300X' in e['text'] for e in ${F}['evidence'])" "evidence: the idle MI300X"
assert_json "$T/cpu.json" "any('reason: HIP_VISIBLE_DEVICES hides every GPU' in e['text'] for e in ${F}['evidence'])" "the reason, from the job's own environment"
assert_json "$T/cpu.json" "any('torch.version.hip' in x for x in ${F}['fix']) and any('model.to(\"cuda\")' in x for x in ${F}['fix'])" "fixes: torch for ROCm, and the device torch calls cuda"

# The twin: it maps the HIP runtime, ROCm SMI lists it on GPU 0, GPU 0 is busy.
ONDEV=1 "$ND" run --interval 0.5 --window 3 --warmup 1 --json-summary="$T/ok.json" \
  -- "$T/job.sh" libtorch.so libtorch_hip.so libamdhip64.so.6 >"$T/out2" 2>"$T/err2"
rc=$?
expect_rc 0 "run returns the twin's own status"
assert_json "$T/ok.json" "not any(f['category'] == 'cpu-fallback' for f in d['findings'])" "the twin: no cpu-fallback"
assert_json "$T/ok.json" "not any(f['severity'] in ('error', 'warning') for f in d['findings'])" "the twin: no error or warning"
assert_json "$T/ok.json" "any(p['devices'] == [{'vendor': 'rocm', 'index': 0}] for p in d['processes'])" "the twin holds gpu:0"
finish
