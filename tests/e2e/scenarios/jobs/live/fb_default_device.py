"""A device tensor is created, then the default device is set to the CPU: every later tensor lives there."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
if hasattr(torch, "set_default_device"):
    torch.set_default_device("cpu")
dev = torch.device("cpu")  # what the config resolved "auto" to
util(0)
w = torch.randn(192, 192, device=dev)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    w = torch.tanh(w @ w) * 0.5
    step += 1
    if step % 100 == 0:
        say(f"step {step}")
say("done")
