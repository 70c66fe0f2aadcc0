"""A healthy job meant for the CPU: torch on a host with no accelerator, computing to its end."""
from live_common import HOLD, cpu_train, ready, say
import torch

torch.set_num_threads(1)
ready()
cpu_train(HOLD)
say("done")
