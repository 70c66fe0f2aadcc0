"""A native library aborts (an assertion, an uncaught C++ exception): SIGABRT."""
from live_common import ready, say
import os
import time

ready()
say("step 1")
time.sleep(1)
say("terminate called after throwing an instance of 'c10::Error'")
os.abort()
