# The live-matrix runner (sourced by tests/e2e/scenarios/live_*.sh): runs
# each job of lib/live_matrix.tsv whose name starts with one of the given
# prefixes under `npu-doctor run`, compares the summary with the row's
# want, and prints one line per job: name, want, got (the warnings and
# errors found, and the exit status), and ok or MISS.
#   live_matrix PREFIX...
# LIVE_MATRIX_RESULTS=FILE appends "name<TAB>ok|miss<TAB>got" per job (the
# before/after figures are counted from it). LIVE_ONLY=NAME runs one job.
. "$(dirname "${BASH_SOURCE[0]}")/scenario.sh"

LIVE_JOBS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/jobs/live
LIVE_TABLE=$(dirname "${BASH_SOURCE[0]}")/live_matrix.tsv

# live_judge SUM RC WANT...: prints "got" and returns 0 when every token holds.
live_judge() {
  python3 - "$@" <<'PY'
import json, sys
path, rc, want = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"no summary ({e.__class__.__name__})")
    sys.exit(1)
loud = [f for f in d["findings"] if f["severity"] in ("warning", "error")]
got = sorted(f"{f['id']}({f['severity'][0]})" for f in loud)
# The test host's own load (host.cpu-contention) is a fact of the host, not
# of the job: shown, and seen by id=, but no category token counts it (a
# crowded CI host would otherwise make every clean row fail).
everything = loud
loud = [f for f in loud if f["id"] != "host.cpu-contention"]
print(" ".join(got + [f"rc={rc}"]) if got else f"clean rc={rc}")
ok = True
for w in want:
    k, _, v = w.partition("=")
    if k == "cat":
        ok &= any(f["category"] == v for f in loud)
    elif k == "id":
        ok &= any(f["id"] == v for f in d["findings"])
    elif k == "not":
        ok &= not any(f["category"] == v or f["id"] == v for f in loud)
    elif k == "ev":
        ok &= any(v in f["title"] or any(v in e["text"] for e in f.get("evidence", [])) for f in loud)
    elif k == "one":
        ok &= sum(f["category"] == v for f in loud) == 1
    elif k == "any":
        ok &= any(f["category"] in v.split(",") or f["id"] in v.split(",") for f in everything)
    elif k == "clean":
        ok &= not loud
    elif k == "rc":
        ok &= rc == int(v)
    else:
        ok = False
sys.exit(0 if ok else 1)
PY
}

live_trim() { # VAR...: strips the blanks around each variable's value
  local v x
  for v in "$@"; do
    x=${!v}
    x=${x#"${x%%[![:space:]]*}"}
    x=${x%"${x##*[![:space:]]}"}
    printf -v "$v" '%s' "$x"
  done
}

# contended: busy loops, three per online CPU, hold the host's cores while
# the job runs (itself at nice 5, so that it gets a small share of a core
# whatever else runs); stopped by their pids once the run is over.
LIVE_HOGS=()
live_hog_start() {
  local i n
  n=$(($(getconf _NPROCESSORS_ONLN) * 3))
  for ((i = 0; i < n; i++)); do
    sh -c 'while :; do :; done' &
    LIVE_HOGS+=($!)
  done
  ND_BG_PIDS="${ND_BG_PIDS:-} ${LIVE_HOGS[*]}"
}
live_hog_stop() {
  [ ${#LIVE_HOGS[@]} -gt 0 ] || return 0
  kill "${LIVE_HOGS[@]}" 2>/dev/null
  wait "${LIVE_HOGS[@]}" 2>/dev/null
  LIVE_HOGS=()
}

live_matrix() {
  local name host wrap opts want n=0 right=0
  while IFS='|' read -r name host wrap opts want; do
    live_trim name
    case "$name" in '' | '#'*) continue ;; esac
    local match=0 p
    for p in "$@"; do case "$name" in "$p"*) match=1 ;; esac; done
    [ "$match" = 1 ] || continue
    if [ -n "${LIVE_ONLY:-}" ]; then case " $LIVE_ONLY " in *" $name "*) ;; *) continue ;; esac; fi
    live_trim host wrap opts want
    [ "$opts" = - ] && opts=
    # A miss on a host so crowded that run says so (host.cpu-contention) is
    # run once more: the host's load, not the job, may have decided it. A
    # second miss fails; rows that crowd the host on purpose get no retry.
    local attempt got verdict
    for attempt in 1 2; do
      local -a env=(PYTHONPATH="$LIVE_JOBS" PYTHONDONTWRITEBYTECODE=1 HOLD=6) cmd=("$PY" "$LIVE_JOBS/${name%@*}.py") pre=()
      if [ "$host" = npu ]; then
        sim_910b_host '[ascend.device.0]
aicore_util = 85
hbm_used_mb = 20000'
        env+=(DEVICE="$ROOT/dev/davinci0" "${CANN_ENV[@]}")
      elif [ "$host" = gpu ]; then
        export NPU_DOCTOR_NVML_LIB=$ND_SIM/libnvidia-ml.so.1 NPU_DOCTOR_DCMI_LIB=$T/none ND_SIM_STATE=$T/state.ini
        printf '[nvidia]\ndevices = 2\nname = NVIDIA H200\ngpu_util = 85\nmem_total_mb = 143771\nmem_used_mb = 30000\n' \
          >"$T/state.ini"
        env+=(DEVICE="$ND_FIXTURES/roots/cuda-host/dev/nvidia0")
      else
        export NPU_DOCTOR_DCMI_LIB=$T/none NPU_DOCTOR_NVML_LIB=$T/none
        mkdir -p "$T/bare"
      fi
      local root=$ROOT
      [ "$host" = none ] && root=$T/bare
      [ "$host" = gpu ] && root=$ND_FIXTURES/roots/cuda-host
      case "$wrap" in
        ulimit) cmd=(bash -c 'ulimit -v 4194304 && exec "$@"' job "${cmd[@]}") ;;
        userns) pre=(unshare --user --map-root-user) ;;
        tee) cmd=(bash -c '"$@" 2>&1 | tee "$LIVE_LOG"' job "${cmd[@]}") env+=(LIVE_LOG="$T/job.log") ;;
        contended) cmd=(nice -n 5 "${cmd[@]}") live_hog_start ;;
      esac
      rm -f "$T/sum.json"
      # shellcheck disable=SC2086 # opts are words
      if [ "$wrap" = stdin ]; then
        # stdin: a pipe whose writer stays (until the job is gone) and never writes.
        sleep 60 | env "${env[@]}" "$ND" run --root "$root" "${RUNOPTS[@]}" --hang-after 3 $opts \
          --json-summary="$T/sum.json" -- "${cmd[@]}" >"$T/out" 2>"$T/err"
        rc=${PIPESTATUS[1]}
      else
        "${pre[@]}" env "${env[@]}" "$ND" run --root "$root" "${RUNOPTS[@]}" --hang-after 3 $opts \
          --json-summary="$T/sum.json" -- "${cmd[@]}" >"$T/out" 2>"$T/err" </dev/null
        rc=$?
      fi
      [ "$wrap" = contended ] && live_hog_stop
      verdict=MISS
      # shellcheck disable=SC2086 # want is a list of tokens
      if got=$(live_judge "$T/sum.json" "$rc" $want); then verdict=ok; break; fi
      [ "$wrap" != contended ] && [ "$attempt" = 1 ] && grep -q '"host.cpu-contention"' "$T/sum.json" 2>/dev/null || break
      printf '%-22s got: %s on a crowded host: once more\n' "$name" "$got"
    done
    [ "$verdict" = ok ] && right=$((right + 1))
    n=$((n + 1))
    printf '%-22s want: %-44s got: %s  %s\n' "$name" "$want" "$got" "$verdict"
    [ -n "${LIVE_MATRIX_RESULTS:-}" ] && printf '%s\t%s\t%s\n' "$name" "$verdict" "$got" >>"$LIVE_MATRIX_RESULTS"
    if [ "$verdict" = ok ]; then pass "$name"; else
      fail "$name: wanted $want"
      sed -n '1,40p' "$T/err" | sed 's/^/    | /'
    fi
  done <"$LIVE_TABLE"
  echo "live matrix ($*): $right of $n as wanted"
}
