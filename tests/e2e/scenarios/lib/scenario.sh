# Shared by the scenario suite (tests/e2e/scenarios/*.sh): real torch jobs
# on simulated hosts, each scenario with its healthy twin. Source it first:
#   . "$(dirname "$0")/lib/scenario.sh"
# Provides everything of tests/e2e/lib/assert.sh, $JOB (the job script), $PY (the
# python that sees Debian's torch), $ROOT (a 910B host root) and:
#   finding_is FILE ID CATEGORY SEVERITY   the summary holds that finding
#   twin_clean FILE ERR                    no error or warning, in JSON and on stderr
#   wait_file FILE                         waits (bounded) until FILE exists
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/assert.sh"

JOB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/jobs/job.py
PY=/usr/bin/python3
ROOT=${ND_FIXTURES:?}/roots/ascend-910b-cann80
# Small windows: the jobs run seconds, not minutes (assert categories, never timings).
RUNOPTS=(--interval 0.5 --window 3 --warmup 1)
# The CANN variables a `source set_env.sh` would give (the simulated host's root).
CANN_ENV=(ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest
  ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/latest/opp
  ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest)
unset ASCEND_HOME_PATH ASCEND_OPP_PATH ASCEND_TOOLKIT_HOME ASCEND_AICPU_PATH PYTHONPATH RANK WORLD_SIZE \
  MASTER_ADDR MASTER_PORT LOCAL_RANK

finding_is() { # FILE ID CATEGORY SEVERITY
  assert_json "$1" "any(f['id'] == '$2' and f['category'] == '$3' and f['severity'] == '$4' for f in d['findings'])" \
    "finding $2 ($3, $4)"
}

# The test host's own load (host.cpu-contention) is a fact of the host, not
# of the twin: a crowded CI host may add it; nothing else may be said.
twin_clean() { # FILE ERR
  assert_json "$1" "[f['id'] for f in d['findings'] if f['severity'] in ('error', 'warning') and f['id'] != 'host.cpu-contention'] == []" \
    "the twin: no error or warning"
  assert_not_contains "$2" "npu-doctor: error" "the twin: no live error"
  if grep "npu-doctor: warning" "$2" | grep -qv "\[host.cpu-contention\]"; then
    fail "the twin: a live warning other than the host's load"
  else
    pass "the twin: no live warning"
  fi
}

wait_file() { # FILE
  for _ in $(seq 1800); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}

wait_text() { # FILE TEXT: waits (bounded) until FILE contains TEXT
  for _ in $(seq 1800); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
