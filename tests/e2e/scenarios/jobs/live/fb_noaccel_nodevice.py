"""A host with no accelerator at all: the framework says it falls back to the CPU and trains
there (one finding, worded for a host without a device)."""
from live_common import HOLD, cpu_train, ready, say
import torch

torch.set_num_threads(1)
ready()
say("Warning: No accelerator (CUDA, XPU, HPU) is available. - Falling back to CPU")
cpu_train(HOLD, " on cpu")
say("done")
