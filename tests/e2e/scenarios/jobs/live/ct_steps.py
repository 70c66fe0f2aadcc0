"""A healthy job on a crowded host: its device busy, each step a little CPU
work and a short sleep, so it wants most of a core; run under `contended`
(busy loops hold the cores) it is runnable but waits for a CPU."""
from live_common import HOLD, ready, say, spin, util
import time

ready()
util(85)
end = time.monotonic() + HOLD
n = 0
while time.monotonic() < end:
    spin(0.02)
    time.sleep(0.005)
    n += 1
    if n % 20 == 0:
        say(f"step {n}")
say("done")
