# Shared sweeps of the planted-secrets scenarios (secrets_matrix.sh,
# secrets_tools.sh): each plants its own forms, then every output path is
# searched for every needle. Source after assert.sh; set SECRETS_NEEDLES to
# a file of needles, one a line (the part of each secret that must never
# come out), and OOM to a line explain quotes.

# secrets_scan WHAT FILE...: no needle in the files.
secrets_scan() {
  local what=$1 found="" k
  shift
  while IFS= read -r k; do
    [ -n "$k" ] && grep -qF -- "$k" "$@" 2>/dev/null && found="$found $k"
  done <"$SECRETS_NEEDLES"
  if [ -z "$found" ]; then pass "$what: no planted secret"; else
    fail "$what: leaked$found"
    for k in $found; do grep -hnF -- "$k" "$@" | head -2 | cut -c1-200 | sed "s/^/    | $k: /"; done
  fi
}

# secrets_explain_each FORMS SEP [EXTRA_LOG]: one log per form line (OOM,
# SEP, the form: a finding quotes its first lines only), each explained as
# text, with EXTRA_LOG beside it, as JSON, and gzipped (so is any other log
# already in $T/logs); every form must be
# quoted and no needle come out.
secrets_explain_each() {
  local forms=$1 sep=$2 extra=${3:-} n=0 l f
  mkdir -p "$T/logs"
  while IFS= read -r l; do
    n=$((n + 1))
    printf '%s%s%s\n' "$OOM" "$sep" "$l" >"$T/logs/form$n.log"
  done <"$forms"
  : >"$T/ex.out"
  for f in "$T"/logs/*.log; do
    "$ND" explain --all "$f" >>"$T/ex.out" 2>&1
    [ -n "$extra" ] && "$ND" explain --all "$f" "$extra" >>"$T/ex.out" 2>&1
    "$ND" explain --json "$f" >>"$T/ex.out" 2>&1
    gzip -c "$f" >"$f.gz"
    "$ND" explain --json "$f.gz" >>"$T/ex.out" 2>&1
  done
  assert_contains "$T/ex.out" "GPU out of memory" "explain read the planted logs"
  if [ "$(grep -c 'CUDA out of memory. ' "$T/ex.out")" -ge "$n" ]; then pass "every form was quoted as evidence"
  else fail "only $(grep -c 'CUDA out of memory. ' "$T/ex.out") quoted lines for $n forms"; fi
  secrets_scan "explain (text, JSON, .gz)" "$T/ex.out"
}

# secrets_run_outputs ERR SUMMARY REPORT_DIR [METRICS]: what run wrote.
secrets_run_outputs() {
  secrets_scan "run stderr (live alerts, summary)" "$1"
  secrets_scan "run --json-summary" "$2"
  # shellcheck disable=SC2046
  secrets_scan "run --report files (report, timeline)" $(find "$3" -type f)
  [ -n "$(find "$3" -name '*.svg')" ] && pass "the report has a timeline" || fail "no timeline in the report"
  [ -n "${4:-}" ] && secrets_scan "run --metrics-file" "$4"
}

# secrets_process_sweep PID PS_TEXT: a process whose argv and environment
# hold the secrets, seen by watch, ps (which must list PS_TEXT), check and
# snapshot.
secrets_process_sweep() {
  local pid=$1
  mkdir -p "$T/wrep"
  run_nd "$T/o" "$T/e" watch --no-devices --pid "$pid" --for 1 --interval 0.5 --report "$T/wrep" --json-summary="$T/wsum.json"
  secrets_scan "watch stdout and stderr" "$T/o" "$T/e"
  secrets_scan "watch --json-summary" "$T/wsum.json"
  # shellcheck disable=SC2046
  secrets_scan "watch --report files" $(find "$T/wrep" -type f)
  run_nd "$T/o" "$T/e" ps --all --interval 0
  assert_contains "$T/o" "$2" "ps lists the process"
  secrets_scan "ps" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" ps --all --json --interval 0
  secrets_scan "ps --json" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" check --env-from "$pid"
  secrets_scan "check --env-from" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" check --json --env-from "$pid"
  secrets_scan "check --json --env-from" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" check --report-issue --env-from "$pid"
  secrets_scan "check --report-issue --env-from" "$T/o" "$T/e"
  run_nd "$T/snap-pid.json" "$T/e" snapshot --json --env-from "$pid"
  secrets_scan "snapshot --env-from" "$T/snap-pid.json" "$T/e"
}

# secrets_env_file_sweep FILE: KEY=VALUE lines read by check and snapshot;
# leaves the snapshot in $T/snap.json.
secrets_env_file_sweep() {
  run_nd "$T/o" "$T/e" check --env-file "$1"
  secrets_scan "check --env-file" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" check --json --env-file "$1"
  secrets_scan "check --json --env-file" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" check --report-issue --env-file "$1"
  secrets_scan "check --report-issue --env-file" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" snapshot --text --env-file "$1"
  secrets_scan "snapshot --text" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" snapshot --env-file "$1" -o "$T/snap.json"
  secrets_scan "snapshot -o" "$T/snap.json" "$T/o" "$T/e"
}

# secrets_diff_foreign LINES: $T/snap.json as a snapshot from elsewhere that
# carries LINES in clear (as env values and as finding evidence), compared
# with diff, as text and JSON.
secrets_diff_foreign() {
  python3 - "$T/snap.json" "$T/raw.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[3]).read().splitlines()
for i, l in enumerate(lines):
    d["env"]["LOGLINE_%d" % i] = l
d["findings"].append({"id": "x.leak", "category": "config", "severity": "info", "title": "t",
                      "evidence": [{"text": l} for l in lines]})
json.dump(d, open(sys.argv[2], "w"))
PY
  run_nd "$T/o" "$T/e" diff --all "$T/raw.json" "$T/snap.json"
  secrets_scan "diff --all" "$T/o" "$T/e"
  run_nd "$T/o" "$T/e" diff --all --json "$T/raw.json" "$T/snap.json"
  secrets_scan "diff --all --json" "$T/o" "$T/e"
}
