"""The optimizer step runs on the CPU (an offload setting): parameters and Adam state on the CPU."""
from live_common import HOLD, ready, say, util
import time
import torch

torch.set_num_threads(1)
ready()
util(4)
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(32, 512)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    step += 1
    if step % 20 == 0:
        say(f"step {step} loss {loss.item():.4f}")
say("done")
