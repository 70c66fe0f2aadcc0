"""Partial fallback: the model is on the device, the loss is computed on the CPU every step."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
util(5)  # the device runs the small forward, then waits for the CPU loss
x = torch.randn(256, 256)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    logits = x @ x.T  # "returned from the device"
    loss = torch.nn.functional.cross_entropy(logits, torch.arange(256))  # on the CPU
    step += 1
    if step % 50 == 0:
        say(f"step {step} loss {loss.item():.3f}")
say("done")
