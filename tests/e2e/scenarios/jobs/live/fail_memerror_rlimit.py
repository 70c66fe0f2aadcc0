"""Host memory runs out under an address-space limit (ulimit -v): numpy raises MemoryError."""
from live_common import ready, say
import time
import numpy as np

ready()
keep = []
say("caching the data set in memory")
time.sleep(1)
while True:
    keep.append(np.ones(64 * 1024 * 1024 // 8))  # 64 MiB each
