#!/usr/bin/env bash
# explain on logs with no error line that no rule knows: a warning whose
# words name a category is reported as generic.unexplained-warning, a
# low-confidence warning (exit 1), never an error; deprecation notices and
# other advice a healthy run prints stay quiet, and an error line in the
# same log takes the fallback's place.
. "$(dirname "$0")/lib/assert.sh"

cat >"$T/glog.log" <<'LOG'
epoch 1 step 10 loss 2.031
W1201 10:00:01.123 12345 comm.cc:88] hccl collective allreduce timeout waiting rank link not ready
epoch 1 step 10 loss 2.031
LOG
run_nd "$T/out" "$T/err" explain --json "$T/glog.log"
expect_rc 1 "a glog W line: a warning (exit 1)"
assert_json "$T/out" "d['findings'][0]['id'] == 'generic.unexplained-warning' and d['findings'][0]['category'] == 'distributed' and d['findings'][0]['severity'] == 'warning' and d['findings'][0]['confidence'] == 'low'" \
  "a glog W line about collectives: unexplained-warning (distributed, low)"

cat >"$T/benign.log" <<'LOG'
/usr/lib/python3/site-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.
WARNING:root:the default value of use_reentrant will change in a future version; pass it explicitly
step 1 loss 2.5
step 2 loss 2.4
LOG
run_nd "$T/out" "$T/err" explain --json "$T/benign.log"
expect_rc 0 "deprecation warnings only: nothing found (exit 0)"
assert_json "$T/out" "not any(f['id'] == 'generic.unexplained-warning' for f in d['findings'])" \
  "deprecation warnings: no unexplained-warning"

cat >"$T/witherr.log" <<'LOG'
W1201 10:00:01.123 12345 comm.cc:88] hccl collective allreduce timeout waiting rank link not ready
ERROR: the frobnicator quux went away
LOG
run_nd "$T/out" "$T/err" explain --json "$T/witherr.log"
assert_json "$T/out" "not any(f['id'] == 'generic.unexplained-warning' for f in d['findings'])" \
  "an error line in the log: no warning fallback"

finish
