"""A torchrun-like launcher: two ranks, rank 1 is killed by SIGKILL; the launcher still exits 0."""
from live_common import ready, say
import os
import subprocess
import sys

ready()
code = "import os, signal, sys, time\n" \
       "time.sleep(0.8)\n" \
       "if os.environ['RANK'] == '1': os.kill(os.getpid(), signal.SIGKILL)\n" \
       "time.sleep(0.4)\nprint('rank', os.environ['RANK'], 'done', flush=True)\n"
procs = []
for r in range(2):
    env = dict(os.environ, RANK=str(r), WORLD_SIZE="2", LOCAL_RANK=str(r))
    env.pop("DEVICE", None)
    procs.append(subprocess.Popen([sys.executable, "-c", code], env=env))
for p in procs:
    p.wait()
say("all ranks finished")
sys.exit(0)
