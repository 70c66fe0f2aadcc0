"""Shared by the live-matrix jobs (tests/e2e/scenarios/live_*.sh, lib/live_matrix.sh).

Imported first by every job, before torch, so the simulated device is held
from the start as a runtime holds /dev/davinciN:
  DEVICE=PATH     open PATH and keep it open
  ND_SIM_STATE    the simulators' state file: util() rewrites the device's
                  utilisation in it, so the job itself says how busy its
                  device is (the simulators re-read the file when it changes)
  READY=FILE      ready() writes the pid there
  HOLD=SECONDS    how long a job that runs "until stopped" lasts (default 8)
"""
import os
import re
import signal
import sys
import threading
import time

device_fd = os.open(os.environ["DEVICE"], os.O_RDONLY) if os.environ.get("DEVICE") else None
signal.alarm(240)  # never outlive a broken test
HOLD = float(os.environ.get("HOLD", "8"))


def say(*a):
    print(*a, flush=True)


def ready():
    if os.environ.get("READY"):
        with open(os.environ["READY"] + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(os.environ["READY"] + ".tmp", os.environ["READY"])


def util(pct):
    """Sets the simulated utilisation of device 0 (Ascend or NVIDIA)."""
    path = os.environ.get("ND_SIM_STATE")
    if not path or not os.path.exists(path):
        return
    with open(path) as f:
        text = f.read()
    text = re.sub(r"(\[ascend\.device\.0\][^\[]*?aicore_util = )\d+", r"\g<1>%d" % pct, text)
    text = re.sub(r"(\[nvidia\][^\[]*?gpu_util = )\d+", r"\g<1>%d" % pct, text)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def spin(secs):
    """Busy pure-Python CPU work for secs (no framework involved)."""
    end = time.monotonic() + secs
    x = 0
    while time.monotonic() < end:
        for i in range(10000):
            x = (x * 31 + i) % 1000003
    return x


def exit_after(secs, code=0):
    """A watchdog for jobs that hang on purpose: ends the process after secs."""
    def stop():
        time.sleep(secs)
        os._exit(code)
    threading.Thread(target=stop, daemon=True).start()


def cpu_train(secs, label=""):
    """Trains a small torch model on the CPU for secs, saying every 200th step
    ("step N" + label). torch is imported here, after the device is held."""
    import torch
    x = torch.randn(160, 160)
    end = time.monotonic() + secs
    step = 0
    while time.monotonic() < end:
        x = torch.tanh(x @ x) * 0.5
        step += 1
        if step % 200 == 0:
            say(f"step {step}{label}")
    return x
