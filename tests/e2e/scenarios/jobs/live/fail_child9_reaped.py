"""A DataLoader-like parent whose worker is killed (SIGKILL) as it starts, before any sample
could see it alive; the parent reaps it without a word and waits for ever on its pipe."""
from live_common import HOLD, exit_after, ready, say
import os
import signal

ready()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.kill(os.getpid(), signal.SIGKILL)
os.waitpid(pid, 0)
say("waiting for the first batch")
exit_after(HOLD)
os.read(r, 1)  # the write end is still ours: never comes
