"""The process holding the device says it falls back to the CPU and computes there while its
device idles (one finding: the in-process fallback, the output line as its evidence)."""
from live_common import HOLD, cpu_train, ready, say, util
import torch

torch.set_num_threads(1)
ready()
util(0)
say("Falling back to CPU: the fused kernel is not available")
cpu_train(HOLD, " on cpu")
say("done")
