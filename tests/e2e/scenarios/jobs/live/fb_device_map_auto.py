"""device_map="auto" put the last layers on the CPU: the device holds half the model and mostly waits."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
say("device_map: {'model.layers.0-11': 0, 'model.layers.12-23': 'cpu', 'lm_head': 'cpu'}")
util(12)
layers = [torch.nn.Linear(384, 384) for _ in range(12)]
h = torch.randn(8, 384)
end = time.monotonic() + HOLD
step = 0
with torch.no_grad():
    while time.monotonic() < end:
        y = h
        for layer in layers:  # the CPU half
            y = torch.relu(layer(y))
        step += 1
        if step % 100 == 0:
            say(f"token {step}")
say("done")
