"""The loss becomes nan and the job goes on to exit 0 (no check on the loss)."""
from live_common import ready, say
import sys
import time

ready()
loss = 2.3
for step in range(1, 41):
    loss = loss * 0.9 if step < 15 else float("nan")
    if step % 5 == 0:
        say({"loss": loss, "learning_rate": 5e-05, "epoch": round(step / 40, 2)})
    time.sleep(0.05)
say("training complete")
sys.exit(0)
