"""Augmentation on the CPU inside the training process (no worker processes, no files read)."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
util(6)
batch = torch.rand(16, 3, 64, 64)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    b = batch.flip(3) if step % 2 else batch
    b = torch.nn.functional.interpolate(b, scale_factor=1.5, mode="bilinear", align_corners=False)
    b = (b - b.mean()) / (b.std() + 1e-6)
    step += 1
    if step % 20 == 0:
        say(f"step {step}")
say("done")
