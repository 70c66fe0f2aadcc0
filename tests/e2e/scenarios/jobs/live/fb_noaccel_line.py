"""The framework sees no accelerator although the host has one: it says so and trains on the
CPU, holding no device (a user must see one CPU-fallback finding, worded for a present device)."""
from live_common import HOLD, device_fd, ready, say
import os
import time
import torch

if device_fd is not None:
    os.close(device_fd)
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
