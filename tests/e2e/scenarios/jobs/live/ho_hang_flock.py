"""Waits for a file lock that a leftover process holds for ever (a stale lock on a shared cache)."""
from live_common import HOLD, exit_after, ready, say
import fcntl
import os
import tempfile
import time

fd, path = tempfile.mkstemp(prefix="nd-lock-")
if os.fork() == 0:
    fcntl.flock(fd, fcntl.LOCK_EX)
    time.sleep(HOLD + 2)
    os._exit(0)
time.sleep(0.3)
ready()
say("waiting for the cache lock")
exit_after(HOLD)
fd2 = os.open(path, os.O_RDWR)
fcntl.flock(fd2, fcntl.LOCK_EX)
