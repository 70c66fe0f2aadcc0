"""A barrier for three parties that only two threads ever reach."""
from live_common import HOLD, exit_after, ready, say
import threading

bar = threading.Barrier(3)
ready()
say("syncing")
exit_after(HOLD)
t = threading.Thread(target=bar.wait)
t.start()
bar.wait()
