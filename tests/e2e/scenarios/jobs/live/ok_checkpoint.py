"""A healthy job on its device with one long checkpoint pause: the device idles while the job
writes and fsyncs its checkpoint, then training resumes."""
from live_common import ready, say, util
import os
import tempfile
import time


def main(first_steps=30, pause_s=3.0):
    ready()
    util(85)
    for step in range(1, first_steps + 1):
        time.sleep(0.1)  # the device computes
        if step % 10 == 0:
            say(f"step {step}")
    util(0)
    say("saving checkpoint")
    fd, path = tempfile.mkstemp(prefix="nd-ckpt-")
    end = time.monotonic() + pause_s
    while time.monotonic() < end:
        os.write(fd, os.urandom(1 << 20))
        os.fsync(fd)
    os.close(fd)
    os.unlink(path)
    say("checkpoint saved")
    util(85)
    for step in range(first_steps + 1, 61):
        time.sleep(0.1)
        if step % 10 == 0:
            say(f"step {step}")
    say("done")


if __name__ == "__main__":
    main()
