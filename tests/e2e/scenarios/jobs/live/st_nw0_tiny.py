"""num_workers=0 on a tiny model: the training process loads and decodes every sample itself."""
from live_common import HOLD, ready, say, util
import os
import tempfile
import time
import numpy as np

d = tempfile.mkdtemp(prefix="nd-nw0-")
for i in range(64):
    np.save(os.path.join(d, f"{i}.npy"), np.random.rand(32768))  # 256 KiB each
ready()
util(4)
end = time.monotonic() + HOLD
n = 0
while time.monotonic() < end:
    for i in range(64):
        a = np.load(os.path.join(d, f"{i}.npy"))
        a = np.sort(a)[::-1].reshape(128, 256)  # "decode" and augment
        n += 1
    say(f"samples {n}")
for i in range(64):
    os.unlink(os.path.join(d, f"{i}.npy"))
os.rmdir(d)
say("done")
