"""np.load of a large array from a cold page cache every step (the cache dropped for that file)."""
from live_common import HOLD, ready, say, util
import os
import tempfile
import time
import numpy as np

fd, path = tempfile.mkstemp(prefix="nd-cold-", suffix=".npy")
os.close(fd)
np.save(path, np.random.rand(4 * 1024 * 1024 // 8 * 16))  # 16 MiB
ready()
util(3)
end = time.monotonic() + HOLD
n = 0
while time.monotonic() < end:
    with open(path, "rb") as f:
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    a = np.load(path)
    n += 1
    if n % 5 == 0:
        say(f"loaded {n} shards, mean {a.mean():.3f}")
os.unlink(path)
say("done")
