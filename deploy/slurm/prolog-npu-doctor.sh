#!/bin/sh
# Slurm Prolog: refuse a node whose accelerator stack is broken before a job
# lands on it, instead of letting the job train on the CPU for hours.
#
#   slurm.conf:  Prolog=/etc/slurm/prolog.d/npu-doctor.sh
#                PrologFlags=Alloc        (run it when the job is allocated)
#
# A Prolog that exits non-zero makes Slurm drain the node and requeue the job,
# so only errors fail (exit 2 of npu-doctor check); warnings (exit 1, asked for
# with --fail-on warning) are logged.
# Settings (environment, or edit here):
#   NPU_DOCTOR          the binary (default: npu-doctor on PATH)
#   NPU_DOCTOR_STRICT   1: warnings fail the node too
#   NPU_DOCTOR_TIMEOUT  seconds before the check counts as hung (default 60)
#   NPU_DOCTOR_SET_ENV  the CANN set_env.sh jobs source (default: the first found)
set -u

nd=${NPU_DOCTOR:-npu-doctor}
strict=${NPU_DOCTOR_STRICT:-0}
limit=${NPU_DOCTOR_TIMEOUT:-60}
node=$(hostname)

say() {
    # The Prolog's output goes nowhere by default: keep it in syslog too.
    echo "npu-doctor prolog on $node: $*" >&2
    logger -t npu-doctor-prolog -- "$*" 2>/dev/null || true
}

if ! command -v "$nd" >/dev/null 2>&1; then
    say "npu-doctor not found ($nd); not checking"
    exit 0
fi

# The Prolog runs with slurmd's environment, not the job's. Load the CANN
# environment the jobs load, so the check judges the node (driver, firmware,
# devices, toolkit) rather than slurmd's empty environment.
set_env=${NPU_DOCTOR_SET_ENV:-}
if [ -z "$set_env" ]; then
    for f in /usr/local/Ascend/ascend-toolkit/set_env.sh /usr/local/Ascend/cann/set_env.sh; do
        if [ -r "$f" ]; then
            set_env=$f
            break
        fi
    done
fi
[ -r "$set_env" ] || set_env=

# set_env.sh is written for bash; sourced by dash, a bash-ism would end the
# Prolog with a syntax error and drain a healthy node. Source it in a child
# shell (bash when there is one) that then becomes the check.
runner="sh"
if command -v bash >/dev/null 2>&1; then
    runner="bash"
fi
# shellcheck disable=SC2016 # expanded by the child shell, on purpose
script='if [ -n "$1" ]; then . "$1" >/dev/null 2>&1; fi; exec "$2" check --quiet --fail-on warning'
if command -v timeout >/dev/null 2>&1; then
    out=$(timeout "$limit" "$runner" -c "$script" npu-doctor-prolog "$set_env" "$nd" 2>&1)
else
    out=$("$runner" -c "$script" npu-doctor-prolog "$set_env" "$nd" 2>&1)
fi
rc=$?

case $rc in
0)
    exit 0
    ;;
1)
    say "warnings for job ${SLURM_JOB_ID:-?}: $(printf '%s' "$out" | head -n 5 | tr '\n' ' ')"
    if [ "$strict" = 1 ]; then
        exit 1
    fi
    exit 0
    ;;
124)
    say "npu-doctor check timed out after ${limit}s: the driver or a device is hanging"
    exit 1
    ;;
*)
    say "node refused for job ${SLURM_JOB_ID:-?} (npu-doctor check exit $rc): $(printf '%s' "$out" | head -n 5 | tr '\n' ' ')"
    exit 1
    ;;
esac
