"""DataLoader-like workers whose __getitem__ waits 0.25 s per sample (network storage latency);
the training process polls their queue with a timeout, as torch's DataLoader does."""
from live_common import HOLD, ready, say, util
import multiprocessing as mp
import queue
import time


def worker(q, wid, end):
    i = 0
    while time.monotonic() < end:
        time.sleep(0.25)  # the remote read
        q.put((wid, i, b"x" * 1024))
        i += 1
    q.put(None)


if __name__ == "__main__":
    mp.set_start_method("fork")
    end = time.monotonic() + HOLD
    q = mp.Queue()
    ps = [mp.Process(target=worker, args=(q, w, end)) for w in range(2)]
    for p in ps:
        p.start()
    ready()
    util(2)
    done = n = 0
    while done < len(ps):
        try:
            item = q.get(timeout=5.0)
        except queue.Empty:
            continue
        if item is None:
            done += 1
            continue
        n += 1
        if n % 4 == 0:
            say(f"batch {n}")
    for p in ps:
        p.join()
    say("done")
