#!/usr/bin/env python3
"""Comparator for bench/run.sh: a psutil-based sampler doing, per tick, the
work npu-doctor's sampler does: the whole process tree of ROOT (new children
included), per-process CPU time, RSS and threads, the open device files of
every process (/proc/PID/fd) and the mapped frameworks (/proc/PID/maps),
both looked at again only when the process used CPU since the last look or
5 s passed (as npu-doctor does), and the cgroup's oom_kill counter. It keeps
the samples in a list, as a naive monitor would.

usage: psutil_sampler.py ROOT_PID INTERVAL_S DURATION_S
"""
import os
import sys
import time

import psutil

FRAMEWORKS = ("libtorch", "libtorch_npu", "libascendcl", "libhccl", "libcuda", "libcudart", "libnccl", "python")


def cgroup_events(pid):
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and "memory" in parts[1].split(","):
            return f"/sys/fs/cgroup/memory{parts[2]}/memory.oom_control"
    for line in lines:
        if line.startswith("0::"):
            return f"/sys/fs/cgroup{line[3:]}/memory.events"
    return None


def oom_kill(path):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    except (OSError, TypeError, ValueError):
        pass
    return -1


def main():
    root, interval, duration = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    events = cgroup_events(root)
    prev_cpu, maps_at, fw_cache, samples = {}, {}, {}, []
    fp_at, fp_cpu, holds_cache = {}, {}, {}
    start = time.monotonic()
    next_tick = start
    while time.monotonic() - start < duration:
        now = time.monotonic()
        try:
            top = psutil.Process(root)
            procs = [top] + top.children(recursive=True)
        except psutil.NoSuchProcess:
            break
        cores = rss = threads = 0
        holds, frameworks = False, set()
        for p in procs:
            try:
                with p.oneshot():
                    t = p.cpu_times()
                    used = t.user + t.system
                    cores += (used - prev_cpu.get(p.pid, used)) / interval
                    prev_cpu[p.pid] = used
                    rss += p.memory_info().rss
                    threads += p.num_threads()
                due = p.pid not in fp_at or fp_cpu.get(p.pid) != used or now - fp_at[p.pid] >= 5.0
                if due:
                    fp_at[p.pid], fp_cpu[p.pid] = now, used
                    held = False
                    fd_dir = f"/proc/{p.pid}/fd"
                    for fd in os.listdir(fd_dir):
                        try:
                            target = os.readlink(f"{fd_dir}/{fd}")
                        except OSError:
                            continue
                        if target.startswith(("/dev/davinci", "/dev/nvidia")):
                            held = True
                    holds_cache[p.pid] = held
                    if now - maps_at.get(p.pid, -1e9) >= 5.0:
                        maps_at[p.pid] = now
                        found = set()
                        with open(f"/proc/{p.pid}/maps") as f:
                            for line in f:
                                base = line.rsplit("/", 1)[-1]
                                for name in FRAMEWORKS:
                                    if base.startswith(name):
                                        found.add(name)
                        fw_cache[p.pid] = found
                holds = holds or holds_cache.get(p.pid, False)
                frameworks |= fw_cache.get(p.pid, set())
            except (psutil.NoSuchProcess, psutil.AccessDenied, OSError):
                continue
        samples.append((now - start, cores, rss, threads, len(procs), holds, tuple(sorted(frameworks)),
                        oom_kill(events)))
        next_tick += interval
        time.sleep(max(0.0, next_tick - time.monotonic()))
    print(f"{len(samples)} samples", file=sys.stderr)


if __name__ == "__main__":
    main()
