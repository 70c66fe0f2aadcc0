"""Uses the device, then the runtime is torn down (device closed) and training goes on on the CPU."""
import live_common
from live_common import HOLD, ready, say, util
import os
import time
import torch

torch.set_num_threads(1)
ready()
util(85)
time.sleep(3)
say("device lost: reinitialising on cpu")
os.close(live_common.device_fd)
util(0)
x = torch.randn(160, 160)
end = time.monotonic() + HOLD + 2
step = 0
while time.monotonic() < end:
    x = torch.tanh(x @ x) * 0.5
    step += 1
    if step % 200 == 0:
        say(f"step {step}")
say("done")
