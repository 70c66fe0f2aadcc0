"""Two threads take two locks in opposite order: a deadlock; the main thread joins them."""
from live_common import HOLD, exit_after, ready, say
import threading
import time

a, b = threading.Lock(), threading.Lock()


def one(x, y):
    with x:
        time.sleep(0.3)
        with y:
            pass


ready()
say("starting the two stages")
exit_after(HOLD)
ts = [threading.Thread(target=one, args=(a, b)), threading.Thread(target=one, args=(b, a))]
for t in ts:
    t.start()
for t in ts:
    t.join()
