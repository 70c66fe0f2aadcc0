"""A host with no accelerator at all: the framework says it falls back to the CPU and trains
there (one finding, worded for a host without a device)."""
from live_common import HOLD, ready, say
import time
import torch

torch.set_num_threads(1)
ready()
say("Warning: No accelerator (CUDA, XPU, HPU) is available. - Falling back to CPU")
x = torch.randn(160, 160)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    x = torch.tanh(x @ x) * 0.5
    step += 1
    if step % 200 == 0:
        say(f"step {step} on cpu")
say("done")
