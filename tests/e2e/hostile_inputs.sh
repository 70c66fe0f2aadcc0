#!/usr/bin/env bash
# explain over a folder another user filled: a file we may not read among
# readable ones, a FIFO, a symlink loop and a link to /dev/zero, all in one
# folder. Each odd entry is one note line; the readable log is still
# explained and decides the exit code. Unprivileged where the host lets us
# run a second user (root reads every file). Every run is bounded by
# timeout; nothing asserts on time.
. "$(dirname "$0")/lib/assert.sh"
export NO_COLOR=1
OOM='torch.cuda.OutOfMemoryError: CUDA out of memory.'

mkdir -p "$T/logs/sub"
chmod 755 "$T" "$T/logs" "$T/logs/sub"
echo "$OOM" >"$T/logs/a.log"
echo "secret log" >"$T/logs/b.log"
mkfifo "$T/logs/pipe.log"
ln -s .. "$T/logs/sub/up"
ln -s /dev/zero "$T/logs/zero.log"
chmod 644 "$T/logs/a.log"
chmod 600 "$T/logs/b.log"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  as_user() { timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  unreadable=1
else
  as_user() { timeout 60 "$@"; }
  chmod 000 "$T/logs/b.log"
  unreadable=$([ -r "$T/logs/b.log" ] && echo 0 || echo 1)
fi
as_user "$ND" explain "$T/logs" >"$T/o" 2>"$T/e" </dev/null
rc=$?
expect_rc 2 "the readable log decides the exit code"
assert_contains "$T/o" "GPU out of memory" "the readable log is explained"
if [ "$unreadable" = 1 ]; then
  assert_contains "$T/e" "b.log: Permission denied" "the unreadable file is named"
  [ "$(grep -cF 'logs/b.log' "$T/e")" -eq 1 ] && pass "one line for it" ||
    fail "$(grep -cF 'logs/b.log' "$T/e") lines for it: $(sed 's/^/    | /' "$T/e")"
else
  pass "unreadable file: this user reads every file (not here)"
fi
[ "$(grep -c 'pipe.log' "$T/e")" -le 1 ] && pass "at most one line for the FIFO" || fail "FIFO: several lines"
[ "$(grep -c 'zero.log' "$T/e")" -le 1 ] && pass "at most one line for /dev/zero" || fail "/dev/zero: several lines"
[ "$(grep -c 'sub/up' "$T/e")" -le 1 ] && pass "at most one line for the loop" || fail "loop: several lines"
assert_not_contains "$T/o" "secret log" "nothing of the unreadable file is printed"
finish
