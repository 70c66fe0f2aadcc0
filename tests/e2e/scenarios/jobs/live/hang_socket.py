"""The device is held while the job waits on a socket read that never returns (a rendezvous store)."""
from live_common import HOLD, exit_after, ready, say, util
import socket

a, b = socket.socketpair()
ready()
util(0)
say("waiting for the store")
exit_after(HOLD)
a.recv(1)
