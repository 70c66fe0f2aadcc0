"""The loader's workers die (SIGKILL) while the training process waits on their queue forever."""
from live_common import HOLD, exit_after, ready, say, util
import multiprocessing as mp
import os
import signal
import time


def worker(q):
    time.sleep(1)
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    mp.set_start_method("fork")
    q = mp.Queue()
    ps = [mp.Process(target=worker, args=(q,)) for _ in range(2)]
    for p in ps:
        p.start()
    ready()
    util(0)
    say("waiting for the first batch")
    exit_after(HOLD)
    q.get()  # never comes
