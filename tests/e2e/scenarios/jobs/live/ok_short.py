"""A short healthy job: done in about a second, exit 0."""
from live_common import ready, say, spin

ready()
spin(0.8)
say("done")
