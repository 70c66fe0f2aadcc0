#!/usr/bin/env bash
# The live matrix, contended host: jobs run while busy loops hold the host's
# cores (wrap contended, lib/live_matrix.sh). The job is runnable but waits
# for a CPU; run must say so (host.cpu-contention), and not take it for a CPU
# fallback, a hang or an idle device. st_fsync@contended, the storage form
# under the same contention, runs with the storage jobs (live_storage.sh).
. "$(dirname "$0")/lib/live_matrix.sh"
live_matrix ct_
finish
