"""A healthy job that sleeps, silent, for longer than --hang-after while it waits its turn
at a rendezvous, then trains on its device."""
from live_common import ready, say, util
import time

ready()
util(0)
say("waiting for the rendezvous")
time.sleep(5)
say("rendezvous complete")
util(85)
for step in range(1, 41):
    time.sleep(0.1)
    if step % 10 == 0:
        say(f"step {step}")
say("done")
