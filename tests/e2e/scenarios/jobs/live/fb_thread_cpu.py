"""A helper thread of the training process computes on the CPU while the main thread waits on it."""
from live_common import HOLD, ready, say, util
import threading
import time
import torch

torch.set_num_threads(1)
ready()
util(3)


def evaluate(out):
    x = torch.randn(160, 160)
    end = time.monotonic() + HOLD
    while time.monotonic() < end:
        x = torch.tanh(x @ x) * 0.5
    out.append(float(x.sum()))


out = []
for rnd in range(1):
    t = threading.Thread(target=evaluate, args=(out,))
    t.start()
    while t.is_alive():
        t.join(1.0)
        say("waiting for the evaluator")
say(f"done {out}")
