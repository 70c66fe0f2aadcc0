"""A torchrun-like parent whose worker is killed (SIGKILL) as it starts, before any sample
could see it alive; the parent never reaps it and waits for ever."""
from live_common import HOLD, exit_after, ready, say
import os
import signal
import threading

ready()
os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
if os.fork() == 0:
    os.kill(os.getpid(), signal.SIGKILL)
say("waiting for the workers")
exit_after(HOLD)
threading.Event().wait()
