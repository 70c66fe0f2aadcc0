"""The training process reads its samples from a named FIFO that a slow producer fills."""
from live_common import HOLD, ready, say, util
import os
import tempfile
import time

d = tempfile.mkdtemp(prefix="nd-fifo-")
fifo = os.path.join(d, "samples")
os.mkfifo(fifo)
if os.fork() == 0:  # the producer: 8 KiB every 0.3 s
    fd = os.open(fifo, os.O_WRONLY)
    end = time.monotonic() + HOLD
    while time.monotonic() < end:
        os.write(fd, b"s" * 8192)
        time.sleep(0.3)
    os._exit(0)
ready()
util(1)
fd = os.open(fifo, os.O_RDONLY)
total = 0
while True:
    b = os.read(fd, 65536)
    if not b:
        break
    total += len(b)
    if total % (8192 * 5) == 0:
        say(f"read {total} bytes")
os.wait()
os.unlink(fifo)
os.rmdir(d)
say(f"done: {total} bytes")
