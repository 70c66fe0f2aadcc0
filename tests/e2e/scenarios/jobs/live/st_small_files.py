"""Reads a data set of many small files, one open/read/close per sample, in the training process."""
from live_common import HOLD, ready, say, util
import os
import tempfile
import time

d = tempfile.mkdtemp(prefix="nd-small-")
for i in range(400):
    with open(os.path.join(d, f"{i:05d}.bin"), "wb") as f:
        f.write(os.urandom(4096))
ready()
util(2)
end = time.monotonic() + HOLD
n = total = 0
while time.monotonic() < end:
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            total += len(f.read())
        n += 1
    say(f"epoch: {n} samples, {total} bytes")
for name in os.listdir(d):
    os.unlink(os.path.join(d, name))
os.rmdir(d)
say("done")
