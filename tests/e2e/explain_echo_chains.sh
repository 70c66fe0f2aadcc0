#!/usr/bin/env bash
# explain puts the first failure of a job above its echoes: the surviving
# ranks' collective timeouts, lost peers and broken pipes, and torchrun's
# summary of a rank killed by SIGKILL, in one log and across the files of a
# job directory; a timeout alone keeps its reading and a healthy log stays
# quiet. The logs follow the documented formats of torchrun, NCCL and HCCL.
. "$(dirname "$0")/lib/assert.sh"

top() { # top JSON ID CATEGORY DESCRIPTION
  assert_json "$1" "d['findings'][0]['id'] == '$2' and d['findings'][0]['category'] == '$3'" "$4"
}

summary9() { # summary9 RANK TRACEBACK_LINE: torchrun's Root Cause block for exit code -9
  printf '%s\n' 'torch.distributed.elastic.multiprocessing.errors.ChildFailedError:' \
    '============================================================' 'train.py FAILED' \
    '------------------------------------------------------------' 'Failures:' '  <NO_OTHER_FAILURES>' \
    '------------------------------------------------------------' 'Root Cause (first observed failure):' '[0]:' \
    '  time      : 2024-12-01_10:40:03' '  host      : node1' "  rank      : $1 (local_rank: $1)" \
    "  exitcode  : -9 (pid: 2222)" '  error_file: <N/A>' "  traceback : $2" \
    '============================================================'
}

# torchrun's summary names a rank killed by -9 without a traceback (the
# newer form with the link): host memory, with the advice to read dmesg.
summary9 0 'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html' >"$T/sum9.log"
run_nd "$T/out" "$T/err" explain --json "$T/sum9.log"
expect_rc 2 "a -9 summary is an error"
top "$T/out" torch.elastic-root-sigkill host-oom "a -9 root cause without a traceback is host memory"
assert_json "$T/out" '"dmesg" in " ".join(d["findings"][0]["fix"]) and "killed it" in d["findings"][0]["cause"]' "it says the kernel or a supervisor killed it and to read dmesg"

# The same summary with exit code 1 is not a kill.
summary9 0 'x' | sed 's/exitcode  : -9/exitcode  : 1/' >"$T/sum1.log"
run_nd "$T/out" "$T/err" explain --json "$T/sum1.log"
assert_json "$T/out" 'all(f["id"] != "torch.elastic-root-sigkill" for f in d["findings"])' "exit code 1 in the summary is no SIGKILL"

# The peers' NCCL watchdog timeout comes first in the log; the killed rank
# (older form: the signal in the traceback field) leads.
{ printf '%s\n' '[rank0]:[E1201 10:40:01.123456 2221 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5821, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.' \
    'E1201 10:40:03.000000 2200 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank: 1 (pid: 2222) of binary: /usr/bin/python3'
  summary9 1 'Signal 9 (SIGKILL) received by PID 2222'; } >"$T/nccl9.log"
run_nd "$T/out" "$T/err" explain --json "$T/nccl9.log"
top "$T/out" torch.elastic-root-sigkill host-oom "the killed rank explains the NCCL watchdog timeout"

# Ascend: HCCL EI0006 on rank 0, the DeepSpeed launcher's SIGKILL report in
# another file of the job directory; neither line carries a timestamp.
mkdir -p "$T/job1"
printf '%s\n' 'EI0006: Getting socket times out. Reason: 1. The remote does not initiate a connect request. some NPUs in the cluster are abnormal.' \
  '[ERROR] 2024-12-01-13:00:05 (PID:4321, Device:0, RankID:0) ERR02200 DIST call hccl api failed.' >"$T/job1/a_rank0.log"
printf '%s\n' "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'train.py', '--local_rank=1']' died with <Signals.SIGKILL: 9>." >"$T/job1/b_launcher.log"
run_nd "$T/out" "$T/err" explain --json "$T/job1"
assert_json "$T/out" 'd["findings"][0]["category"] == "host-oom"' "a kill in the launcher's file explains rank 0's HCCL timeout"
assert_json "$T/out" 'any(f["id"] == "hccl.socket-timeout" for f in d["findings"])' "the HCCL timeout is still listed"

# Ascend: a device OOM on rank 1, EI0002 notify-wait timeouts on rank 0.
mkdir -p "$T/job2"
printf '%s\n' 'EI0002: [PID: 4321] The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [1].' \
  '[ERROR] HCCL(4321,python) [hccl_communicator.cc:1200][4321][Wait][NotifyWait] notify wait timeout' >"$T/job2/rank0.log"
printf '%s\n' 'Traceback (most recent call last):' '  File "train.py", line 77, in <module>' \
  'RuntimeError: NPU out of memory. Tried to allocate 3.20 GiB (NPU 1; 60.96 GiB total capacity; 57.10 GiB already allocated; 1.02 GiB free)' >"$T/job2/rank1.log"
run_nd "$T/out" "$T/err" explain --json "$T/job2"
assert_json "$T/out" 'd["findings"][0]["category"] == "device-oom"' "rank 1's OOM explains rank 0's notify-wait timeout"

# A broken pipe after a rank died is an echo; alone it is a lost peer.
printf '%s\n' '[rank3]: RuntimeError: Broken pipe' >"$T/pipe.log"
run_nd "$T/out" "$T/err" explain --json "$T/pipe.log"
top "$T/out" dist.peer-connection-broken distributed "a broken pipe alone is a lost peer"
mkdir -p "$T/job3"
cp "$T/pipe.log" "$T/job3/a.log"
printf '%s\n' 'Out of memory: Killed process 2222 (python3) total-vm:180123456kB, anon-rss:160123456kB, file-rss:0kB' >"$T/job3/b_dmesg.txt"
run_nd "$T/out" "$T/err" explain --json "$T/job3"
top "$T/out" host.oom-killer host-oom "the OOM kill explains the broken pipe"

# A collective timeout alone stays a distributed reading.
printf '%s\n' 'EI0002: [PID: 2345] 2024-05-01-10:02:00.000.000 The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [5].' >"$T/alone.log"
run_nd "$T/out" "$T/err" explain --json "$T/alone.log"
assert_json "$T/out" 'd["findings"][0]["category"] == "distributed"' "a timeout alone is distributed"

# A healthy torchrun log: no error finding.
printf '%s\n' 'W1201 10:00:00.000000 2200 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default' \
  '[rank0]: step 100 loss 2.31' '[rank1]: step 100 loss 2.30' 'INFO: retrying after Connection reset by peer' \
  'I1201 10:30:00.000000 2200 torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished.' >"$T/healthy.log"
run_nd "$T/out" "$T/err" explain --json "$T/healthy.log"
assert_json "$T/out" 'all(f["severity"] != "error" for f in d["findings"])' "a healthy torchrun log gets no error finding"
finish
