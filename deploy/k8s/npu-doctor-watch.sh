#!/bin/sh
# The watch-daemonset.yaml loop (shipped in its ConfigMap; keep the two equal):
# find the node's training process, watch it with `npu-doctor watch`, keep its
# Prometheus metrics in node_exporter's textfile directory, repeat.
# Settings: NPU_DOCTOR_MATCH (a pgrep -f pattern for the training process),
# NPU_DOCTOR_TEXTFILE (the .prom file), NPU_DOCTOR_POLL (seconds between looks).
set -u

match=${NPU_DOCTOR_MATCH:-python.*train}
textfile=${NPU_DOCTOR_TEXTFILE:-/textfile/npu_doctor.prom}
poll=${NPU_DOCTOR_POLL:-15}
nd=${NPU_DOCTOR:-npu-doctor}

while :; do
    # hostPID: true in the pod, so pgrep sees the training pods' processes.
    pid=$(pgrep -o -f "$match" || true)
    if [ -z "$pid" ]; then
        # No job: no stale metrics claiming one is running.
        rm -f "$textfile"
        sleep "$poll"
        continue
    fi
    echo "watching pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-120))"
    "$nd" watch --pid "$pid" --quiet --metrics-file "$textfile" || true
    sleep 1
done
