"""A torchrun-like launcher: two ranks, rank 1 is killed by SIGKILL; the launcher still exits 0."""
from live_common import ready, say
import os
import subprocess
import sys

ready()
# Each rank steps every 0.4 s; rank 1 is killed after its third step, rank 0 ends after its sixth.
code = "import os, signal, time\n" \
       "for step in range(6):\n" \
       "    print('rank', os.environ['RANK'], 'step', step, flush=True)\n" \
       "    time.sleep(0.4)\n" \
       "    if step == 2 and os.environ['RANK'] == '1': os.kill(os.getpid(), signal.SIGKILL)\n"
procs = []
for r in range(2):
    env = dict(os.environ, RANK=str(r), WORLD_SIZE="2", LOCAL_RANK=str(r))
    env.pop("DEVICE", None)
    procs.append(subprocess.Popen([sys.executable, "-c", code], env=env))
for p in procs:
    p.wait()
say("all ranks finished")
sys.exit(0)
