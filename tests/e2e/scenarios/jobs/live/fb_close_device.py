"""Uses the device, then the runtime is torn down (device closed) and training goes on on the CPU."""
import live_common
from live_common import HOLD, cpu_train, ready, say, util
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
cpu_train(HOLD + 2)
say("done")
