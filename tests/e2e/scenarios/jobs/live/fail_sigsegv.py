"""A native crash: a C call dereferences a null pointer (SIGSEGV)."""
from live_common import ready, say
import ctypes
import time

ready()
say("step 1")
time.sleep(1)
ctypes.string_at(0)
