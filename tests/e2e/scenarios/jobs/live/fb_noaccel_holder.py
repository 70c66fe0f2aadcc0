"""The process holding the device says it falls back to the CPU and computes there while its
device idles (one finding: the in-process fallback, the output line as its evidence)."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
util(0)
say("Falling back to CPU: the fused kernel is not available")
x = torch.randn(160, 160)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    x = torch.tanh(x @ x) * 0.5
    step += 1
    if step % 200 == 0:
        say(f"step {step} on cpu")
say("done")
