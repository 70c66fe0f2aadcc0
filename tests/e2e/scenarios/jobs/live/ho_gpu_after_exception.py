"""On an NVIDIA GPU for a while, then a caught CUDA error and the rest of the run on the CPU (the device stays open)."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
util(90)
time.sleep(3)
try:
    raise RuntimeError("CUDA error: an illegal memory access was encountered")
except RuntimeError as e:
    say(f"warning: {e}; continuing on cpu")
util(0)
x = torch.randn(160, 160)
end = time.monotonic() + HOLD
while time.monotonic() < end:
    x = torch.tanh(x @ x) * 0.5
say("done")
