"""The job blocks reading stdin (a prompt nobody answers; stdin is a pipe that stays open)."""
from live_common import HOLD, exit_after, ready, say, util
import sys

ready()
util(0)
say("Overwrite the existing checkpoint? [y/N]")
exit_after(HOLD)
sys.stdin.readline()
