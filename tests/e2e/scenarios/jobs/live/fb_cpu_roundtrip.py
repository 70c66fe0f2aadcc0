"""A .cpu() round-trip every step: the metric (and its math) runs on the CPU, the device waits."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
util(8)
x = torch.randn(200, 200)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    y = x.cpu()  # the round trip
    m = torch.linalg.norm(y @ y, dim=1).sort().values  # CPU math on the copy
    x = x * 0.999 + m[:1] * 0
    step += 1
    if step % 50 == 0:
        say(f"step {step} metric {m[0].item():.2f}")
say("done")
