"""The torch jobs of the scenario suite, one mode each (real torch, CPU only).

usage: job.py MODE [SECONDS]
  DEVICE=PATH   open PATH and keep it open, as a runtime keeps /dev/davinciN
  READY=FILE    written once torch is imported (the test waits for it)

modes:
  train      compute on the CPU (one thread) for SECONDS
  exit5      train for SECONDS, then exit with status 5
  storage    hold the device while a worker sleeps reading a slow pipe
  cpu-input  hold the device while 2 workers decode on the CPU for SECONDS
  traceback  raise ValueError after import (exit 1)
  oom-text   print the NPU out-of-memory error and exit 1
  import     import torch_npu, which is not installed (exit 1)
  hang       the main thread waits on an event nobody sets
  stop       stop itself with SIGSTOP (the test continues it)
  sigkill    kill itself with SIGKILL
  alloc      allocate 1 GiB tensors until the address-space limit bites
  gloo       join a 2-rank gloo group (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)
             and all_reduce; with SKIP_RANK=N, rank N never calls all_reduce
"""
import os
import signal
import sys
import threading
import time

# Opened before torch is imported: importing takes seconds here, longer than
# the scenarios' short windows, and a job on a device has it from the start.
device_fd = os.open(os.environ["DEVICE"], os.O_RDONLY) if os.environ.get("DEVICE") else None

import torch  # noqa: E402

signal.alarm(300)  # never outlive a broken test
torch.set_num_threads(1)
mode = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
if os.environ.get("READY"):
    with open(os.environ["READY"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.environ["READY"] + ".tmp", os.environ["READY"])
print(f"job {mode} pid {os.getpid()} rank {os.environ.get('RANK', '-')}", flush=True)


def train(secs):
    x = torch.randn(128, 128)
    end = time.monotonic() + secs
    step = 0
    while time.monotonic() < end:
        x = torch.tanh(x @ x) * 0.5
        step += 1
        if step % 200 == 0:
            print(f"step {step}", flush=True)
    print(f"done: {step} steps", flush=True)


if mode == "train":
    train(seconds)
elif mode == "exit5":
    train(seconds)
    sys.exit(5)
elif mode == "cpu-input":
    kids = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            if device_fd is not None:
                os.close(device_fd)  # a DataLoader worker does not use the device
            train(seconds)
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)  # the trainer waits for batches
    print("done", flush=True)
elif mode == "storage":
    r, w = os.pipe()
    if os.fork() == 0:  # the "storage": 16 KiB every 0.25 s
        os.close(r)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            os.write(w, b"x" * 16384)
            time.sleep(0.25)
        os._exit(0)
    os.close(w)
    if os.fork() == 0:  # the DataLoader worker: sleeps in read()
        total = 0
        while True:
            b = os.read(r, 65536)
            if not b:
                break
            total += len(b)
        print(f"worker read {total} bytes", flush=True)
        os._exit(0)
    os.close(r)
    os.wait()
    os.wait()
    print("done", flush=True)
elif mode == "traceback":
    time.sleep(seconds)
    raise ValueError("expected input of shape [64, 3, 32, 32], got [64, 32, 32]")
elif mode == "oom-text":
    time.sleep(seconds)
    print("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity; "
          "58.20 GiB already allocated; 0 bytes free)", file=sys.stderr, flush=True)
    sys.exit(1)
elif mode == "import":
    import torch_npu  # noqa: F401
elif mode == "hang":
    threading.Event().wait()
elif mode == "stop":
    os.kill(os.getpid(), signal.SIGSTOP)
    print("continued", flush=True)
elif mode == "sigkill":
    time.sleep(seconds)
    os.kill(os.getpid(), signal.SIGKILL)
elif mode == "alloc":
    keep = []
    while True:
        keep.append(torch.ones(256, 1024, 1024))  # 1 GiB each
elif mode == "gloo":
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=__import__("datetime").timedelta(seconds=600))
    if os.environ.get("SKIP_RANK") == os.environ["RANK"]:
        print("this rank skips the all_reduce", flush=True)
        time.sleep(seconds)
    else:
        t = torch.ones(4)
        dist.all_reduce(t)
        print(f"all_reduce: {t.tolist()}", flush=True)
    dist.destroy_process_group()
else:
    sys.exit(f"unknown mode {mode}")
if device_fd is not None:
    os.close(device_fd)
