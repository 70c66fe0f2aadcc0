"""A training script that fails with a traceback; the launcher pipes it through tee, so the pipeline exits 0."""
from live_common import ready, say
import time

ready()
say("epoch 1")
time.sleep(1)
raise KeyError("learning_rate")
