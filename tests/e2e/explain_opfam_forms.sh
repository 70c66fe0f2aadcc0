#!/usr/bin/env bash
# Message families from outside the corpus (opfam): other frameworks' forms of
# unsupported-op, numerics, host-oom, distributed and device-oom messages read
# as their category, rank below the specific causes they accompany, and the
# near misses (a numpy RuntimeWarning, another MPI exit code) stay quiet.
. "$(dirname "$0")/lib/assert.sh"

first() { # JSON -> "id category severity" of the first finding, or "none"
  python3 -c 'import json,sys
f=json.load(open(sys.argv[1])).get("findings") or []
print("%s %s %s" % (f[0]["id"], f[0]["category"], f[0]["severity"]) if f else "none")' "$1"
}
expect_first() { # LOG WANT DESCRIPTION
  run_nd "$T/out" "$T/err" explain --json "$1"
  got=$(first "$T/out")
  if [ "$got" = "$2" ]; then pass "$3"; else fail "$3: got '$got', wanted '$2'"; fi
}

# A JVM heap error is host memory, not the device OOM its class name suggests.
printf '%s\n' 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space' >"$T/java.log"
expect_first "$T/java.log" "opfam.java-heap-oom host-oom error" "a JVM heap error is host memory"

# Windows' paging file names the reason the DLL load failed.
printf '%s\n' 'OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "C:\py\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies.' >"$T/paging.log"
expect_first "$T/paging.log" "opfam.windows-paging-file host-oom error" "the paging file outranks the DLL load it broke"

# MPICH's exit code 9 is a kill only inside its termination banner.
printf '%s\n' '===================================================================================' \
  '=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES' '=   PID 4711 RUNNING AT node1' '=   EXIT CODE: 9' >"$T/mpich9.log"
expect_first "$T/mpich9.log" "opfam.mpich-killed-signal-9 host-oom error" "MPICH's exit code 9 is a SIGKILL"
printf '%s\n' 'worker finished, EXIT CODE: 9 tasks done' >"$T/code9.log"
run_nd "$T/out" "$T/err" explain --json "$T/code9.log"
assert_not_contains "$T/out" "opfam.mpich-killed-signal-9" "exit code 9 outside the MPICH banner is no kill"

# A dying notebook kernel is a warning: the error it follows leads.
printf '%s\n' 'RuntimeError: "LayerNormKernelImpl" not implemented for '"'"'Half'"'"'' \
  'The kernel appears to have died. It will restart automatically.' >"$T/nb.log"
expect_first "$T/nb.log" "opfam.torch-kernel-dtype-not-implemented unsupported-op error" "the kernel's dtype error leads the notebook crash"
printf '%s\n' 'The kernel appears to have died. It will restart automatically.' >"$T/nbalone.log"
expect_first "$T/nbalone.log" "opfam.notebook-kernel-died host-oom warning" "a notebook crash alone reads as host memory, as a warning"

# Numerics forms of other frameworks; numpy's warning is not an error.
printf '%s\n' 'Epoch 1/10' '120/500 [====>.........] - ETA: 30s - loss: nan' 'Batch 120: Invalid loss, terminating training' >"$T/keras.log"
run_nd "$T/out" "$T/err" explain --json "$T/keras.log"
assert_contains "$T/out" "opfam.keras-terminate-on-nan" "Keras' TerminateOnNaN reads as numerics"
printf '%s\n' 'eval.py:12: RuntimeWarning: invalid value encountered in divide' '  ratio = a / b' >"$T/npwarn.log"
run_nd "$T/out" "$T/err" explain --json "$T/npwarn.log"
assert_not_contains "$T/out" "opfam.floating-point-error" "a numpy RuntimeWarning is not a raised floating-point error"

# The quiet words yield to a specific rule in the same log.
printf '%s\n' 'the ranks cannot connect to each other' \
  'torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).' >"$T/quiet.log"
expect_first "$T/quiet.log" "dist.address-in-use distributed error" "the port in use leads the user's words"
printf '%s\n' 'the ranks cannot connect to each other' >"$T/quietalone.log"
expect_first "$T/quietalone.log" "opfam.quiet-comm-words distributed warning" "the words alone read as a communication failure"

finish
