"""A healthy job on its device that logs every step and sleeps while the device computes."""
from live_common import HOLD, ready, say, util
import time

ready()
util(88)
end = time.monotonic() + HOLD
step = 0
while time.monotonic() < end:
    time.sleep(0.05)
    step += 1
    say(f"step {step} loss {1.0 / step:.4f}")
say("done")
