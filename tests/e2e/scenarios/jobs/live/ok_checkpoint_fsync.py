"""A healthy job whose checkpoint save (write and fsync) pauses compute for longer than the
suite's window, then trains on: at most a storage note, no fallback, no hang."""
from ok_checkpoint import main

main(first_steps=20, pause_s=4.5)
