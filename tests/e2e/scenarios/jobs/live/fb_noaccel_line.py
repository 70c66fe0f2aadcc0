"""The framework sees no accelerator although the host has one: it says so and trains on the
CPU, holding no device (a user must see one CPU-fallback finding, worded for a present device)."""
from live_common import HOLD, cpu_train, device_fd, ready, say
import os
import torch

if device_fd is not None:
    os.close(device_fd)
torch.set_num_threads(1)
ready()
say("Warning: No accelerator (CUDA, XPU, HPU) is available. - Falling back to CPU")
cpu_train(HOLD, " on cpu")
say("done")
