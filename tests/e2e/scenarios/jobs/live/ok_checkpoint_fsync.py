"""A healthy job whose checkpoint save (write and fsync) pauses compute for longer than the
suite's window, then trains on: at most a storage note, no fallback, no hang."""
from live_common import ready, say, util
import os
import tempfile
import time

ready()
util(85)
for step in range(1, 21):
    time.sleep(0.1)
    if step % 10 == 0:
        say(f"step {step}")
util(0)
say("saving checkpoint")
fd, path = tempfile.mkstemp(prefix="nd-ckpt-")
end = time.monotonic() + 4.5
while time.monotonic() < end:
    os.write(fd, os.urandom(1 << 20))
    os.fsync(fd)
os.close(fd)
os.unlink(path)
say("checkpoint saved")
util(85)
for step in range(21, 61):
    time.sleep(0.1)
    if step % 10 == 0:
        say(f"step {step}")
say("done")
