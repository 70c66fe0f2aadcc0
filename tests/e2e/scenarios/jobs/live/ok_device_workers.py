"""A healthy job on its device fed by two busy loader workers."""
from live_common import HOLD, ready, say, spin, util
import os
import time

kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        spin(HOLD)
        os._exit(0)
    kids.append(pid)
ready()
util(85)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    time.sleep(0.1)
    step += 1
    if step % 10 == 0:
        say(f"step {step}")
for pid in kids:
    os.waitpid(pid, 0)
say("done")
