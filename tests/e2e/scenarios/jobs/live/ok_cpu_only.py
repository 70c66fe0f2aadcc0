"""A healthy job meant for the CPU: torch on a host with no accelerator, computing to its end."""
from live_common import HOLD, ready, say
import time
import torch

torch.set_num_threads(1)
ready()
x = torch.randn(160, 160)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    x = torch.tanh(x @ x) * 0.5
    step += 1
    if step % 200 == 0:
        say(f"step {step}")
say("done")
