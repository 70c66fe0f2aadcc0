"""On the device for a while, then an exception is caught and the job goes on on the CPU (device still open)."""
from live_common import HOLD, ready, say, util
import time
import traceback
import torch

torch.set_num_threads(1)
ready()
util(85)
t0 = time.monotonic()
step = 0
while time.monotonic() < t0 + 4:
    time.sleep(0.05)  # the device computes; the host waits for it
    step += 1
    if step % 10 == 0:
        say(f"step {step} on npu:0")
try:
    raise RuntimeError("call aclnnFlashAttentionScore failed, detail:EZ1001: the op is not supported")
except RuntimeError:
    traceback.print_exc()
    say("falling back to the CPU implementation")
util(0)
x = torch.randn(160, 160)
end = time.monotonic() + HOLD
while time.monotonic() < end:
    x = torch.tanh(x @ x) * 0.5
    step += 1
    if step % 200 == 0:
        say(f"step {step} on cpu")
say("done")
