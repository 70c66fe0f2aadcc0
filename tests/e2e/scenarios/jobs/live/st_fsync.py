"""Every step writes a small record and fsyncs it: the process waits on the disk (state D)."""
from live_common import HOLD, ready, say, util
import os
import tempfile
import time

fd, path = tempfile.mkstemp(prefix="nd-fsync-")
ready()
util(2)
end = time.monotonic() + HOLD
n = 0
while time.monotonic() < end:
    os.write(fd, os.urandom(4096))
    os.fsync(fd)
    n += 1
    if n % 50 == 0:
        say(f"step {n}")
os.close(fd)
os.unlink(path)
say("done")
