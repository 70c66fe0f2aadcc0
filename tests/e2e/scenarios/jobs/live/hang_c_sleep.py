"""The main thread sleeps inside a C call (a native library waiting on nothing)."""
from live_common import HOLD, exit_after, ready, say
import ctypes

libc = ctypes.CDLL(None)
ready()
say("calling into the native library")
exit_after(HOLD)
libc.sleep(1000)
