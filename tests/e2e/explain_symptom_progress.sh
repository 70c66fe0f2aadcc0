#!/usr/bin/env bash
# explain on symptom logs that have no error line, written in the formats the
# tools print: a start-up line naming the CPU, a trainer that stops after its
# start-of-training banner, data time that dominates the step, smi tables of
# idle or intermittent devices, a CPU-bound Python in top. Each gives its
# category as a warning (exit 1); its healthy twin gives no such finding, and
# a real error in the same log still comes first.
. "$(dirname "$0")/lib/assert.sh"

# top_of LOG ID CATEGORY DESCRIPTION: the first finding has that id and
# category and is a warning.
top_of() {
  run_nd "$T/out" "$T/err" explain --json "$1"
  expect_rc 1 "$4: a warning (exit 1)"
  assert_json "$T/out" "d['findings'][0]['id'] == '$2' and d['findings'][0]['category'] == '$3' and d['findings'][0]['severity'] == 'warning'" \
    "$4: $2 ($3) first"
}

# quiet LOG DESCRIPTION: no finding from the symptom rules or the log shape.
quiet() {
  run_nd "$T/out" "$T/err" explain --json "$1"
  assert_json "$T/out" "not any(f['id'].startswith(('shape.', 'fallback.tool-', 'fallback.llama-', 'hang.no-progress', 'data.gpustat')) for f in d['findings'])" \
    "$2: no symptom finding"
}

cat >"$T/yolo_cpu.log" <<'LOG'
Ultralytics 8.2.0 🚀 Python-3.11.4 torch-2.3.0+cu121 CPU (AMD EPYC 7B13)
engine/trainer: task=detect, mode=train, model=yolov8s.pt, data=data.yaml, epochs=50, batch=16, imgsz=640, device=None, workers=8
      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size
       1/50         0G      1.214      2.301      1.187         41        640:   3%|▎         | 12/400 [01:02<33:15,  5.14s/it]
LOG
top_of "$T/yolo_cpu.log" fallback.tool-banner-cpu cpu-fallback "YOLO start-up line naming the CPU"
sed 's/ CPU (AMD EPYC 7B13)/ CUDA:0 (NVIDIA A10G, 22516MiB)/; s/5.14s\/it/3.10it\/s/' "$T/yolo_cpu.log" >"$T/yolo_gpu.log"
quiet "$T/yolo_gpu.log" "twin: the same start-up on CUDA:0"

cat >"$T/mindspore_check.log" <<'LOG'
$ python -c "import mindspore;mindspore.set_device('Ascend');mindspore.run_check()"
MindSpore version:  2.3.1
The result of multiplication calculation is correct, MindSpore has been installed on platform [CPU] successfully!
LOG
top_of "$T/mindspore_check.log" fallback.tool-banner-cpu cpu-fallback "MindSpore self-check on the CPU platform"

cat >"$T/hf_banner.log" <<'LOG'
[INFO|trainer.py:2128] 2024-05-01 10:00:00,000 >> ***** Running training *****
[INFO|trainer.py:2129] 2024-05-01 10:00:00,000 >>   Num examples = 52,002
[INFO|trainer.py:2130] 2024-05-01 10:00:00,000 >>   Num Epochs = 3
[INFO|trainer.py:2131] 2024-05-01 10:00:00,000 >>   Instantaneous batch size per device = 4
[INFO|trainer.py:2134] 2024-05-01 10:00:00,000 >>   Total train batch size (w. parallel, distributed & accumulation) = 64
[INFO|trainer.py:2135] 2024-05-01 10:00:00,000 >>   Gradient Accumulation steps = 2
[INFO|trainer.py:2136] 2024-05-01 10:00:00,000 >>   Total optimization steps = 2,436
[INFO|trainer.py:2137] 2024-05-01 10:00:00,000 >>   Number of trainable parameters = 6,738,415,616
LOG
top_of "$T/hf_banner.log" shape.stalled.train-start hang "a Trainer log that stops after its banner"
{ cat "$T/hf_banner.log"; echo "{'loss': 1.2034, 'grad_norm': 0.98, 'learning_rate': 1.9e-05, 'epoch': 0.01}"; } >"$T/hf_going.log"
quiet "$T/hf_going.log" "twin: the same banner followed by a loss report"
{ cat "$T/hf_banner.log"; echo "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.00 GiB total capacity)"; } >"$T/hf_oom.log"
run_nd "$T/out" "$T/err" explain --json "$T/hf_oom.log"
assert_json "$T/out" "d['findings'][0]['category'] == 'device-oom' and d['findings'][0]['severity'] == 'error'" \
  "a real error after the banner outranks every symptom"

cat >"$T/megatron_banner.log" <<'LOG'
[after model, optimizer, and learning rate scheduler are built] datetime: 2024-05-01 10:00:00
> building train, validation, and test datasets ...
> finished creating GPT datasets ...
[after dataloaders are built] datetime: 2024-05-01 10:00:30
done with setup ...
training ...
[before the start of training step] datetime: 2024-05-01 10:00:31
LOG
top_of "$T/megatron_banner.log" shape.stalled.train-start hang "Megatron stops before its first iteration"
{ cat "$T/megatron_banner.log"; echo " iteration        1/    1000 | consumed samples:          256 | elapsed time per iteration (ms): 4521.3 | lm loss: 1.1E+01 |"; } >"$T/megatron_going.log"
quiet "$T/megatron_going.log" "twin: Megatron reports its first iteration"

cat >"$T/yolox_data.log" <<'LOG'
2024-05-01 10:00:10 | INFO     | yolox.core.trainer:261 - epoch: 1/300, iter: 10/1000, mem: 5240Mb, iter_time: 1.210s, data_time: 0.950s, total_loss: 9.1, lr: 1.0e-03, eta: 4 days
2024-05-01 10:00:22 | INFO     | yolox.core.trainer:261 - epoch: 1/300, iter: 20/1000, mem: 5240Mb, iter_time: 1.190s, data_time: 0.930s, total_loss: 8.7, lr: 1.0e-03, eta: 4 days
2024-05-01 10:00:34 | INFO     | yolox.core.trainer:261 - epoch: 1/300, iter: 30/1000, mem: 5240Mb, iter_time: 1.230s, data_time: 0.970s, total_loss: 8.4, lr: 1.0e-03, eta: 4 days
LOG
top_of "$T/yolox_data.log" shape.rate.data-wait input-bound "YOLOX data_time close to iter_time"
sed 's/data_time: 0\.9/data_time: 0.0/' "$T/yolox_data.log" >"$T/yolox_fast.log"
quiet "$T/yolox_fast.log" "twin: a small data_time"

cat >"$T/dmon.log" <<'LOG'
epoch 1 step 100 loss 2.31
# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk
# Idx     W     C     C     %     %     %     %   MHz   MHz
    0   250    61     -   100    45     0     0  1593  1410
    0    72    55     -     0     0     0     0  1593  1410
    0    70    54     -     0     0     0     0  1593  1410
    0   248    60     -    99    44     0     0  1593  1410
    0    71    55     -     1     0     0     0  1593  1410
LOG
top_of "$T/dmon.log" shape.device.device-intermittent input-bound "nvidia-smi dmon between 0 and 100%"
sed -E 's/^(    0 +[0-9]+ +[0-9]+ +- +)[ 0-9]{3}/\1 97/' "$T/dmon.log" >"$T/dmon_busy.log"
quiet "$T/dmon_busy.log" "twin: dmon steadily busy"

cat >"$T/npu_unused.log" <<'LOG'
epoch: 1 step: 10, loss is 2.3012
+------------------------------------------------------------------------------------------------+
| npu-smi 23.0.0                   Version: 23.0.0                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 88.5        38                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3162 / 65536         |
+===========================+===============+====================================================+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| No running processes found in NPU 0                                                            |
+===========================+===============+====================================================+
epoch: 1 step: 20, loss is 2.2987
LOG
top_of "$T/npu_unused.log" shape.device.device-unused cpu-fallback "npu-smi idle with no process while steps go on"
sed 's/| 0           0    \/ 0          3162/| 92          0    \/ 0          52162/' "$T/npu_unused.log" >"$T/npu_busy.log"
quiet "$T/npu_busy.log" "twin: the NPU at 92%"

sed '/^| 0 /d' "$T/npu_unused.log" | grep -v '^epoch' >"$T/npu_none.log"
top_of "$T/npu_none.log" shape.device.device-none no-device "npu-smi with its headers and no NPU row"
printf '>>> import torch, torch_npu\n>>> torch.npu.device_count()\n0\n' >"$T/npu_count.log"
top_of "$T/npu_count.log" ascend.no-device.count-printed-zero no-device "torch.npu.device_count() answered 0"

cat >"$T/top.log" <<'LOG'
top - 10:00:00 up 3 days,  1:02,  1 user,  load average: 31.20, 30.10, 28.00
    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
  12345 alice     20   0   30.1g   5.2g 200.0m R  3150   4.1 120:01.00 python
  12400 alice     20   0    1.1g   0.2g  20.0m S   1.0   0.1   0:01.00 bash
LOG
top_of "$T/top.log" shape.host.host-cpu-compute cpu-fallback "top: Python on 31 cores"
sed 's/R  3150 /R  104  /' "$T/top.log" >"$T/top_one.log"
quiet "$T/top_one.log" "twin: Python on one core"

cat >"$T/remark.log" <<'LOG'
[2024-05-01 10:00:00] INFO: rank 0 joined
[2024-05-01 10:00:01] INFO: building model
[2024-05-01 10:40:00] WARNING: rank 3 has not made any progress for 2400 seconds
LOG
top_of "$T/remark.log" hang.no-progress-remark hang "a watchdog's no-progress line"
finish
