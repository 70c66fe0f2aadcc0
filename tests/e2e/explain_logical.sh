#!/usr/bin/env bash
# explain on the shapes real logs have: an EZ9999 wrapper whose
# indented TraceBack names the cause, rank prefixes on every line, context
# rules (CUDA calls on a torch_npu host; an AI CPU timeout on GetNext), one
# finding per line, and a low-confidence finding for an unknown failure.
. "$(dirname "$0")/lib/assert.sh"

# Shape from a public issue: the operator has no binary; the TraceBack
# lines under EZ9999 continue the message.
printf '%s\n' '[E OpParamMaker.cpp:273] call aclnnEqScalar failed, detail:EZ9999: Inner Error!' \
  'EZ9999: 2024-05-17-18:46:14.721.067  Op Equal does not has any binary.' \
  '        TraceBack (most recent call last):' '        Kernel Run failed. opType: 88, Equal' \
  '        launch failed for Equal, errno:561000.' >"$T/ez.log"
run_nd "$T/out" "$T/err" explain --json "$T/ez.log"
expect_rc 2 "EZ9999 block explained"
assert_json "$T/out" 'd["findings"][0]["id"] == "ascend.op-no-binary"' "the line inside the TraceBack decides"
assert_json "$T/out" 'not any(f["id"].startswith("generic.") or f["id"] == "ascend.cann-inner-error" for f in d["findings"])' "wrapper left out"

# Rank prefixes: the rank comes from the prefix, the message still matches.
printf '%s\n' '[rank3]: Traceback (most recent call last):' '[rank3]:   File "/opt/site-packages/torch_npu/npu/utils.py", line 1, in f' \
  '[rank3]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 3; 60.97 GiB total capacity)' >"$T/rank.log"
run_nd "$T/out" "$T/err" explain --json "$T/rank.log"
assert_json "$T/out" 'len(d["findings"]) == 1 and d["findings"][0]["id"] == "ascend.device-oom"' "one finding for the OOM line"

# Context: the CUDA-only assertion means CUDA code on an NPU host only when
# torch_npu is in the log.
printf '%s\n' 'import torch_npu' 'AssertionError: Torch not compiled with CUDA enabled' >"$T/npu.log"
run_nd "$T/out" "$T/err" explain --json "$T/npu.log"
assert_json "$T/out" '[f["id"] for f in d["findings"]] == ["config.cuda-on-npu-host"]' "CUDA code on an NPU host"
printf '%s\n' 'AssertionError: Torch not compiled with CUDA enabled' >"$T/gpu.log"
run_nd "$T/out" "$T/err" explain --json "$T/gpu.log"
assert_json "$T/out" '[f["id"] for f in d["findings"]] == ["cuda.torch-cpu-build"]' "CPU-only torch elsewhere"
printf '%s\n' 'E30008: AI CPU operator execution time out.' 'fault op name: IteratorGetNext' >"$T/getnext.log"
run_nd "$T/out" "$T/err" explain --json "$T/getnext.log"
assert_json "$T/out" '[f["id"] for f in d["findings"]] == ["ascend.aicpu-getnext-timeout"]' "GetNext timeout is input-bound"
printf '%s\n' 'E30008: AI CPU operator execution time out.' 'fault op name: MatMul' >"$T/kernel.log"
run_nd "$T/out" "$T/err" explain --json "$T/kernel.log"
assert_json "$T/out" '[f["id"] for f in d["findings"]] == ["ascend.aicpu-op-timeout"]' "other AI CPU timeouts are a task that did not finish"

# Never silent on a failure, silent on a healthy log.
printf '%s\n' 'step 1' 'Traceback (most recent call last):' '  File "/w/train.py", line 9, in <module>' \
  'KeyError: missing shard 17 in /data/set' >"$T/unknown.log"
run_nd "$T/out" "$T/err" explain --json "$T/unknown.log"
expect_rc 2 "unknown failure reported"
assert_json "$T/out" 'd["findings"][0]["id"] == "generic.unexplained-error" and d["findings"][0]["confidence"] == "low"' "low-confidence finding"
assert_contains "$T/out" 'KeyError: missing shard in' "search text without numbers and paths"
printf '%s\n' 'step 1 loss 0.5' 'step 2 loss 0.4' >"$T/ok.log"
run_nd "$T/out" "$T/err" explain --json "$T/ok.log"
expect_rc 0 "healthy log"
assert_json "$T/out" 'd["findings"] == []' "no finding on a healthy log"
# Captures cannot stall a scan: lint and explain refuse a nested repeat
# or a backreference; a capture that is allowed sees a bounded line, so a
# 2 MB line with the match at its end is explained (hang guard only).
mkdir -p "$T/evil" "$T/ok"
printf '[site.evil]\ncategory = config\npattern = EVILMARK\ncapture = v: (a+)+b\ntitle = evil {v}\nfix = none\nexample = EVILMARK\n' >"$T/evil/e.rules"
run_nd "$T/out" "$T/err" rules lint "$T/evil"
expect_rc 64 "nested repeat in a capture refused by lint"
assert_contains "$T/out" "e.rules:4: [site.evil] capture repeats a group" "lint says where"
printf '[site.bref]\ncategory = config\npattern = EVILMARK\ncapture = v: (a)\\1\ntitle = {v}\nfix = none\nexample = EVILMARK\n' >"$T/evil/e.rules"
run_nd "$T/out" "$T/err" explain --rules "$T/evil" "$T/ok.log"
expect_rc 64 "backreference refused at load"
assert_contains "$T/err" "backreference" "load error names it"
# A '[' inside a bracket expression is a nested class to Rust's regex (rg):
# lint refuses it so a pattern means the same in every engine.
mkdir -p "$T/nest"
printf '[site.nest]\ncategory = numerics\npattern = value=[[ ]*nan\ntitle = t\nfix = none\nexample = value=[ nan\n' >"$T/nest/n.rules"
run_nd "$T/out" "$T/err" rules lint "$T/nest"
expect_rc 64 "a nested bracket in a pattern refused by lint"
assert_contains "$T/out" "n.rules:3: [site.nest] pattern has '['" "lint says where"
printf '[site.nest]\ncategory = numerics\npattern = value=(\\[| )*nan [[:alpha:]]+ [^]]\ntitle = t\nfix = none\nexample = value=[ nan x y\n' >"$T/nest/n.rules"
run_nd "$T/out" "$T/err" rules lint "$T/nest"
expect_rc 0 "escaped brackets and POSIX classes pass lint"
# Patterns match bytes: a CJK character inside a bracket expression stands
# for its three bytes, which other characters share, so lint refuses it.
mkdir -p "$T/mb"
printf '[site.mb]\ncategory = hang\npattern = 卡在[^，。]{0,30}这里\ntitle = t\nfix = none\nexample = 卡在这里\n' >"$T/mb/m.rules"
run_nd "$T/out" "$T/err" rules lint "$T/mb"
expect_rc 64 "a multi-byte character in a bracket expression refused by lint"
assert_contains "$T/out" "m.rules:3: [site.mb] pattern has a multi-byte character" "lint says where"
printf '[site.mb]\ncategory = hang\npattern = 卡在.{0,90}(这里|此处)\ntitle = t\nfix = none\nexample = 卡在第3步这里\n' >"$T/mb/m.rules"
run_nd "$T/out" "$T/err" rules lint "$T/mb"
expect_rc 0 "the same as a group and a bounded dot passes lint"
printf '[site.slow]\ncategory = config\npattern = SLOWMARK\ncapture = v: ([a ]*)c\ntitle = slow {v|none}\nfix = none\nexample = SLOWMARK\n' >"$T/ok/s.rules"
python3 -c "import sys; sys.stdout.write('a ' * 1000000 + 'SLOWMARK\n')" >"$T/long.log"
timeout 300 "$ND" explain --json --rules "$T/ok" "$T/long.log" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "long line with a capture explained"
assert_json "$T/out" 'd["findings"][0]["id"] == "site.slow"' "the capture's rule found"
finish
