"""A healthy job that leaves its device idle between epochs for an evaluation pass on the
CPU, longer than the window, then trains on."""
from live_common import ready, say, spin, util
import time

ready()
util(85)
for step in range(1, 21):
    time.sleep(0.1)  # the device computes
    if step % 10 == 0:
        say(f"epoch 1 step {step}")
util(0)
say("epoch 1 done: evaluating on the CPU")
spin(4.5)
say("eval: accuracy 0.91")
util(85)
for step in range(1, 41):
    time.sleep(0.1)
    if step % 10 == 0:
        say(f"epoch 2 step {step}")
say("done")
