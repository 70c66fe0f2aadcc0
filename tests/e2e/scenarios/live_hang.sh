#!/usr/bin/env bash
# The live matrix, hang jobs: job variants nobody wrote the detectors around
# (lib/live_matrix.tsv says what each must get), run under `npu-doctor run`.
. "$(dirname "$0")/lib/live_matrix.sh"
live_matrix hang_
finish
