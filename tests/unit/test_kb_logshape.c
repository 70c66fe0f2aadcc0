/* Unit tests for the log-shape analysis (kb_logshape.c, kb_shape_rules.c):
 * stack dumps classified by their innermost frames, the blocking step a log
 * stops in, throughput shapes, tool dumps, how the findings merge with the
 * rules' (never above a cause, before a rule that only says "stuck"), the
 * [shape.*] parser's problems, and the built-in vocabulary on real forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb_test_kb.h"

static const char *shape_text =
    "[t.cause]\ncategory = device-oom\npattern = HBMGONE\ntitle = oom\nfix = f\nexample = HBMGONE\n"
    "[t.interrupted]\ncategory = hang\nseverity = warning\nrole = symptom\npattern = ^KeyboardInterrupt$\n"
    "title = ctrl-c\nfix = f\nexample = KeyboardInterrupt\n"
    "[shape.refines]\nrule = t.interrupted\n"
    "[shape.frames.collective]\ncategory = distributed\ntitle = coll\nfix = f\n"
    "frame = torch/distributed/|c10d::\nexample = barrier torch/distributed/distributed_c10d.py\n"
    "[shape.frames.loader]\ncategory = input-bound\ntitle = loader\nfix = f\n"
    "frame = _data_queue|torch/utils/data/\nexample = _try_get_data torch/utils/data/dataloader.py\n"
    "[shape.wait]\nframe = (^| )(wait|poll|select|get|pthread_cond_wait)( |$)\nexample = wait threading.py\n"
    "[shape.signal.stack-waiting]\ncategory = hang\ntitle = waiting\nfix = f\n"
    "[shape.signal.stack-dump]\ncategory = hang\ntitle = dump\nfix = f\n"
    "[shape.step.init]\ncategory = distributed\ntitle = init\nfix = f\ntail = 4\n"
    "pattern = NCCL INFO Bootstrap\ndone = Init COMPLETE\nexample = NCCL INFO Bootstrap : Using eth0\n"
    "[shape.step.shards]\ncategory = hang\ntitle = shards\nfix = f\n"
    "pattern = Loading checkpoint shards: +[0-9]+%\ndone = shards: +100%\n"
    "example = Loading checkpoint shards:  50%|\ncounter = Loading checkpoint shards: 100%|\n"
    "[shape.end]\npattern = Training completed\nexample = Training completed.\n"
    "[shape.dump.npu]\ncategory = device-fault\ntitle = npu\nfix = f\nheader = npu-smi [0-9]\n"
    "fault = \\| +(Alarm|Critical) +\\|\nexample = | 0  910B3   | Alarm   |\n"
    "[shape.dump.topo]\ncategory = distributed\ntitle = topo\nfix = f\nheader = ^GPU0 +GPU1\n"
    "fault = ^GPU[0-9]+ .* (PXB|PIX)( |$)\ncontext = hang\nalone = ^GPU[0-9]+ \nexample = GPU0 X PXB\n"
    "[shape.signal.rate-collapse]\ncategory = input-bound\ntitle = collapse\nfix = f\nmin = 0.2\n"
    "[shape.ratio.data-wait]\ncategory = input-bound\ntitle = data\nfix = f\nmin = 0.5\n"
    "part = data_time: ([0-9]+(\\.[0-9]+)?)\nwhole = (^|[^_])time: ([0-9]+(\\.[0-9]+)?)\n"
    "example = time: 1.0, data_time: 0.9\ncounter = time: 1.0, data_time: 0.1\n"
    "[shape.rate.tqdm]\nunit = it/s\nvalue = ([0-9]+(\\.[0-9]+)?)it/s\ninverse = ([0-9]+(\\.[0-9]+)?)s/it\n"
    "example = 3.5it/s\n"
    "[shape.signal.device-idle]\ncategory = input-bound\ntitle = idle\nfix = f\n"
    "[shape.signal.device-unused]\ncategory = cpu-fallback\ntitle = unused\nfix = f\n";

static struct nd_kb *make_kb(void)
{
    return nd_test_kb(shape_text);
}

static void explain(struct nd_kb *kb, const char *text, struct nd_findings *out)
{
    struct nd_kb_scan *s = nd_kb_scan_new(kb);
    assert_int_equal(nd_kb_scan_buffer(s, "job.log", text, strlen(text)), 0);
    nd_kb_scan_finish(s, out, false);
    nd_kb_scan_free(s);
}

/* The id of the first finding explain gives, or "" (caller frees nothing). */
static char first_id[128];
static const char *top(struct nd_kb *kb, const char *text)
{
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, text, &out);
    snprintf(first_id, sizeof first_id, "%s", out.n ? out.v[0]->id : "");
    if (out.n && strncmp(out.v[0]->id, "shape.", 6) == 0) {
        assert_int_equal(out.v[0]->severity, ND_SEV_WARNING);
        assert_int_equal(out.v[0]->confidence, ND_CONF_LOW);
        assert_true(out.v[0]->nevidence > 0);
    }
    nd_findings_release(&out);
    return first_id;
}

static void test_pyspy_collective(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* The main thread waits in a barrier; another thread's queue wait is noise. */
    assert_string_equal(top(kb, "Process 12: python train.py\n\n"
                                "Thread 13 (idle): \"Thread-1\"\n"
                                "    get (queue.py:170)\n"
                                "    _loop (torch/utils/data/_utils/pin_memory.py:28)\n"
                                "Thread 12 (idle): \"MainThread\"\n"
                                "    barrier (torch/distributed/distributed_c10d.py:3703)\n"
                                "    main (train.py:40)\n"),
                        "shape.stack.collective");
    nd_kb_free(kb);
}

static void test_faulthandler_and_gdb(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    assert_string_equal(top(kb,
                            "Timeout (0:02:00)!\n"
                            "Thread 0x00007f5a1c3fe700 (most recent call first):\n"
                            "  File \"/usr/lib/python3/torch/utils/data/dataloader.py\", line 1133 in _try_get_data\n"
                            "  File \"train.py\", line 10 in main\n"),
                        "shape.stack.loader");
    /* gdb: #0 is innermost; no class, but it sleeps in a condition wait. */
    assert_string_equal(top(kb, "#0  0x00007f12 in pthread_cond_wait () from /lib/libpthread.so.0\n"
                                "#1  0x00007f13 in worker_main () from /opt/lib/libfoo.so\n"),
                        "shape.stack.stack-waiting");
    nd_kb_free(kb);
}

static void test_ctrl_c_traceback(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    const char *log = "step 3 loss 1.0\n"
                      "Traceback (most recent call last):\n"
                      "  File \"train.py\", line 60, in main\n"
                      "    for batch in loader:\n"
                      "  File \"/usr/lib/python3/torch/utils/data/dataloader.py\", line 1284, in _get_data\n"
                      "    success, data = self._try_get_data()\n"
                      "  File \"/usr/lib/python3.10/multiprocessing/connection.py\", line 424, in _poll\n"
                      "    r = wait([self], timeout)\n"
                      "KeyboardInterrupt\n";
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, log, &out);
    /* The stuck frame goes before the rule that only says "interrupted". */
    assert_true(out.n >= 2);
    assert_string_equal(out.v[0]->id, "shape.stack.loader");
    assert_string_equal(out.v[1]->id, "t.interrupted");
    assert_string_equal(out.v[0]->first_file, "job.log");
    assert_int_equal(out.v[0]->first_line, 2);
    nd_findings_release(&out);
    /* A traceback that ends in a real exception is a failure, not a stall. */
    assert_string_equal(top(kb, "Traceback (most recent call last):\n"
                                "  File \"/usr/lib/python3/torch/utils/data/dataloader.py\", line 1, in _get_data\n"
                                "    x = self._data_queue.get()\n"
                                "ValueError: bad sample\n"),
                        "generic.unexplained-error");
    nd_kb_free(kb);
}

/* IPython and Jupyter print tracebacks in their own layout (a header that
 * names the exception, "File path:line, in func(...)" or "path in func(...)"
 * frames, numbered code with an arrow); the innermost frames count the same. */
static void test_ipython_traceback(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    /* IPython 8, a cell interrupted while the DataLoader waited. */
    const char *v8 = "---------------------------------------------------------------------------\n"
                     "KeyboardInterrupt                         Traceback (most recent call last)\n"
                     "Cell In[3], line 5\n"
                     "      3 import torch\n"
                     "----> 5 trainer.fit(model)\n"
                     "\n"
                     "File ~/lib/python3.10/site-packages/torch/utils/data/dataloader.py:1284, in "
                     "_MultiProcessingDataLoaderIter._get_data(self)\n"
                     "   1283 while True:\n"
                     "-> 1284     success, data = self._try_get_data()\n"
                     "\n"
                     "File /usr/lib/python3.10/multiprocessing/connection.py:424, in _poll(self, timeout)\n"
                     "    423 def _poll(self, timeout):\n"
                     "--> 424     r = wait([self], timeout)\n"
                     "\n"
                     "KeyboardInterrupt: \n";
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, v8, &out);
    assert_true(out.n >= 1);
    assert_string_equal(out.v[0]->id, "shape.stack.loader");
    assert_int_equal(out.v[0]->first_line, 2);
    assert_non_null(strstr(out.v[0]->cause, "_try_get_data"));
    nd_findings_release(&out);
    /* IPython 7: "path in func(args)" frames, the end of the log cut off. */
    assert_string_equal(top(kb, "KeyboardInterrupt                         Traceback (most recent call last)\n"
                                "<ipython-input-3-334d309cf512> in <module>\n"
                                "----> 1 dist.barrier()\n"
                                "\n"
                                "/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py in "
                                "barrier(group, async_op, device_ids)\n"
                                "   2520     else:\n"
                                "-> 2521         work = group.barrier(opts=opts)\n"),
                        "shape.stack.collective");
    /* One frame pasted alone, no header and no exception: its innermost
     * frame waits in a known place, so it still reads as a stall. */
    assert_string_equal(top(kb, "File ~/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py:1, in "
                                "_get_data(self)\n"
                                "--> 1 x = self._data_queue.get()\n"),
                        "shape.stack.loader");
    /* ... but a cut-off traceback in busy code says nothing. */
    assert_string_equal(top(kb, "File ~/work/model.py:40, in forward(self, x)\n"
                                "---> 40 x = self.linear(x)\n"),
                        "");
    /* A notebook cell that failed is a failure, not a stall. */
    assert_string_equal(top(kb, "ValueError                                Traceback (most recent call last)\n"
                                "File ~/lib/torch/utils/data/dataloader.py:1, in _get_data(self)\n"
                                "--> 1 x = self._data_queue.get()\n"
                                "\n"
                                "ValueError: bad sample\n"),
                        "generic.unexplained-error");
    /* Lines that only look like IPython 7 frames start no stack. */
    assert_string_equal(top(kb, "installing setup.py in develop mode\nsetup.py in develop mode\n"), "");
    nd_kb_free(kb);
}

static void test_never_above_a_cause(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    assert_string_equal(top(kb, "HBMGONE on device 0\n"
                                "Thread 12 (idle): \"MainThread\"\n"
                                "    barrier (torch/distributed/distributed_c10d.py:3703)\n"),
                        "t.cause");
    nd_kb_free(kb);
}

static void test_last_step(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    assert_string_equal(top(kb, "epoch 0 start\nnode:1:1 [0] NCCL INFO Bootstrap : Using eth0\nsome noise\n"),
                        "shape.stalled.init");
    /* The step finished, or the run went on to its end: no stall. */
    assert_string_equal(top(kb, "NCCL INFO Bootstrap : Using eth0\nNCCL INFO comm 0x1 rank 0 - Init COMPLETE\n"), "");
    assert_string_equal(top(kb, "NCCL INFO Bootstrap : Using eth0\nTraining completed.\n"), "");
    /* Too far from the end (tail = 4 non-blank lines). */
    assert_string_equal(top(kb, "NCCL INFO Bootstrap : Using eth0\na\nb\n\nc\nd\n"), "");
    assert_string_equal(top(kb, "Loading checkpoint shards:  50%|#####     | 1/2\n"), "shape.stalled.shards");
    assert_string_equal(top(kb, "Loading checkpoint shards: 100%|##########| 2/2\n"), "");
    nd_kb_free(kb);
}

static void test_rates(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (int i = 0; i < 12; i++)
        nd_strbuf_addf(&sb, "Epoch 1: %d/1000 [00:%02d<10:00, %.2fit/s, loss=1.0]\n", i * 10, i, 9.5 + (i % 3) * 0.2);
    char *steady = nd_xstrdup(sb.buf);
    assert_string_equal(top(kb, steady), "");
    for (int i = 0; i < 3; i++)
        nd_strbuf_addf(&sb, "Epoch 1: %d/1000 [02:%02d<90:00, %.2fs/it, loss=1.0]\n", 200 + i, i, 4.0 + i);
    assert_string_equal(top(kb, sb.buf), "shape.rate.rate-collapse");
    nd_strbuf_release(&sb);
    free(steady);
    /* Data time close to step time; and a healthy ratio. */
    assert_string_equal(top(kb, "Epoch [1][50/900] time: 1.00, data_time: 0.90, loss: 1\n"
                                "Epoch [1][100/900] time: 1.10, data_time: 0.95, loss: 1\n"
                                "Epoch [1][150/900] time: 0.98, data_time: 0.88, loss: 1\n"),
                        "shape.rate.data-wait");
    assert_string_equal(top(kb, "Epoch [1][50/900] time: 1.00, data_time: 0.03, loss: 1\n"
                                "Epoch [1][100/900] time: 1.10, data_time: 0.02, loss: 1\n"
                                "Epoch [1][150/900] time: 0.98, data_time: 0.03, loss: 1\n"),
                        "");
    nd_kb_free(kb);
}

static const char *smi_idle = "| NVIDIA-SMI 535.1    Driver Version: 535.1    CUDA Version: 12.2 |\n"
                              "|   0  A100-SXM4-40GB      On   | 00000000:07:00.0 Off |                    0 |\n"
                              "| N/A   26C    P0    51W / 400W |  9000MiB / 40537MiB |      0%      Default |\n"
                              "| Processes:                                                                  |\n"
                              "|    0   N/A  N/A   3518784      C   python3                         8990MiB |\n";

static void test_dumps(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    assert_string_equal(top(kb, "| npu-smi 23.0.0  Version: 23.0.0 |\n| 0  910B3   | Alarm   | 93.1 |\n"),
                        "shape.dump.npu");
    assert_string_equal(top(kb, "| npu-smi 23.0.0  Version: 23.0.0 |\n| 0  910B3   | OK   | 93.1 |\n"), "");
    /* A topology matrix counts pasted alone or beside a hang, not beside other output. */
    const char *topo = "GPU0 GPU1 GPU2\nGPU0 X PXB SYS\nGPU1 PXB X SYS\n";
    assert_string_equal(top(kb, topo), "shape.dump.topo");
    char *with = nd_xasprintf("%sall_reduce_perf seems to hang\n", topo);
    assert_string_equal(top(kb, with), "shape.dump.topo");
    free(with);
    with = nd_xasprintf("%strain step 10 loss 1.0\n", topo);
    assert_string_equal(top(kb, with), "");
    free(with);
    /* An idle GPU with the job on it, beside progress lines; alone it is no finding. */
    assert_string_equal(top(kb, smi_idle), "");
    with = nd_xasprintf("%sEpoch 1: 10/100 [00:10<01:30, 1.00it/s, loss=2.3]\n", smi_idle);
    assert_string_equal(top(kb, with), "shape.device.device-idle");
    free(with);
    nd_kb_free(kb);
}

/* Evidence line numbers stay right when only the tail of a long log is kept. */
static void test_long_log_lines(void **state)
{
    (void)state;
    struct nd_kb *kb = make_kb();
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (int i = 0; i < 40000; i++)
        nd_strbuf_addf(&sb, "filler line %d with some words in it\n", i);
    nd_strbuf_adds(&sb, "NCCL INFO Bootstrap : Using eth0\n");
    struct nd_findings out = ND_FINDINGS_INIT;
    explain(kb, sb.buf, &out);
    assert_int_equal(out.n, 1);
    assert_string_equal(out.v[0]->id, "shape.stalled.init");
    assert_int_equal(out.v[0]->evidence[0].line, 40001);
    nd_findings_release(&out);
    nd_strbuf_release(&sb);
    nd_kb_free(kb);
}

static size_t parse_problems(const char *text)
{
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "p.rules", text, strlen(text), false, &problems);
    nd_kb_check_rules(&set, NULL, &problems);
    size_t n = problems.n;
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
    return n;
}

static void test_parser_problems(void **state)
{
    (void)state;
    assert_int_equal(parse_problems("[shape.wait]\nframe = wait\nexample = wait x\n"), 0);
    assert_int_equal(parse_problems("[shape.wait]\nframe = wait\n"), 1);                         /* no example */
    assert_int_equal(parse_problems("[shape.wait]\nframe = (wait\nexample = x\n"), 1);           /* bad regex */
    assert_int_equal(parse_problems("[shape.wait]\nframe = wait\nexample = w\nbogus = 1\n"), 1); /* unknown key */
    assert_int_equal(parse_problems("[shape.nonsense]\nframe = wait\n"), 1);
    assert_int_equal(parse_problems("[shape.step.x]\ncategory = nope\ntitle = t\nfix = f\npattern = a\nexample = a\n"),
                     1);
    assert_int_equal(parse_problems("[shape.dump.x]\ncategory = hang\ntitle = t\nfix = f\nheader = h\nexample = a\n"),
                     1); /* no fault */
    /* An example that does not match shows in rules test. */
    struct nd_kb *kb = nd_test_kb("[t.r]\ncategory = hang\npattern = ZZTOP\ntitle = t\nfix = f\nexample = ZZTOP\n"
                                  "[shape.wait]\nframe = wait\nexample = nothing here\ncounter = wait here\n");
    FILE *fp = fopen("/dev/null", "w");
    size_t checked = 0;
    assert_int_equal(nd_kb_test_examples(kb, fp, &checked), 2);
    fclose(fp);
    nd_kb_free(kb);
}

/* A later file's section of the same name replaces the earlier one. */
static void test_override(void **state)
{
    (void)state;
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    const char *a = "[shape.wait]\nframe = wait\nexample = wait x\n";
    const char *b = "[shape.wait]\nframe = sleep\nexample = sleep x\n";
    nd_kb_parse_rules(&set, "a.rules", a, strlen(a), false, &problems);
    nd_kb_parse_rules(&set, "b.rules", b, strlen(b), true, &problems);
    assert_int_equal(problems.n, 0);
    const struct nd_shape_entry *e = nd_kb_shape_find(&set.shape, ND_SHAPE_WAIT, NULL);
    assert_non_null(e);
    assert_int_equal(e->pat.n, 1);
    assert_false(nd_shape_res_match(&e->pat, "wait x"));
    assert_true(nd_shape_res_match(&e->pat, "sleep x"));
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
}

/* The built-in vocabulary (rules/logshape.rules) on real forms. */
static void test_builtin_vocabulary(void **state)
{
    (void)state;
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    /* A specific rule knows the cpp_extension lock dump; filelock's has none. */
    assert_string_equal(
        top(kb, "Timeout (0:02:00)!\n"
                "File \"/opt/venv/lib/python3.12/site-packages/torch/utils/file_baton.py\", line 50 in wait\n"),
        "hang.torch-extensions-stale-lock");
    assert_string_equal(top(kb,
                            "Thread 0x00007f5a1c3fe700 (most recent call first):\n"
                            "  File \"/usr/lib/python3/site-packages/filelock/_api.py\", line 332 in acquire\n"
                            "  File \"/usr/lib/python3/site-packages/datasets/builder.py\", line 900 in download\n"),
                        "shape.stack.build-lock");
    assert_string_equal(top(kb, "Thread 1 (idle): \"MainThread\"\n"
                                "    wait (c10d::TCPStore::doWait)\n"
                                "    init_process_group (torch/distributed/distributed_c10d.py:1500)\n"),
                        "shape.stack.collective");
    assert_string_equal(top(kb,
                            "Detected CUDA files, patching ldflags\n"
                            "Emitting ninja build file /root/.cache/torch_extensions/py38_cu118/dvr/build.ninja...\n"
                            "Building extension module dvr...\n"
                            "ninja: no work to do.\n"
                            "Loading extension module dvr...\n"),
                        "shape.stalled.extension-build");
    assert_string_equal(top(kb, "Using /root/.cache/torch_extensions/py310_cu118 as PyTorch extensions root...\n"
                                "Loading extension module fused_adam...\n"
                                "Time to load fused_adam op: 0.1 seconds\n"),
                        "");
    /* A notebook frame whose code (over several numbered lines) loads a JIT
     * extension. */
    assert_string_equal(top(kb, "File /opt/ext/kernels.py:8\n"
                                "      5 from torch.utils.cpp_extension import load\n"
                                "----> 8 KERNEL = load(\n"
                                "      9     name=\"codebook_cuda\",\n"
                                "     10     sources=[os.path.join(HERE, \"kernel.cpp\")],\n"
                                "     11 )\n"),
                        "shape.stack.jit-build");
    /* The generic step only on the very last line, and a named step wins. */
    assert_string_equal(top(kb, "epoch 0\nConnecting to the parameter server...\n"), "shape.stalled.in-progress");
    assert_string_equal(top(kb, "Connecting to the parameter server...\nepoch 0 step 1 loss 2.0\n"), "");
    assert_string_equal(top(kb, "Using /root/.cache/torch_extensions/py310_cu118 as PyTorch extensions root...\n"),
                        "shape.stalled.extension-build");
    /* Where a job stopped: compile, launch, engine start, data-set map,
     * the first step; and nothing once a step shows done or the run ended. */
    assert_string_equal(top(kb, "epoch 0 step 10 loss 2.1\n"
                                "[INFO] TBE(1234,python):2024-05-01-10:00:00.000.000 [fusion_manager.py:50] start "
                                "compiling op TransData\n"),
                        "shape.stalled.ascend-compile");
    assert_string_equal(top(kb,
                            "ATC start working now, please wait for a moment.\nATC run success, welcome to the next "
                            "use.\n"),
                        "");
    assert_string_equal(top(kb, "torch._dynamo.eval_frame: [INFO] Step 1: torchdynamo start tracing forward\n"),
                        "shape.stalled.torch-compile");
    assert_string_equal(top(kb, "[2024-05-01 10:00:00,000] [INFO] [launch.py:163:main] dist_world_size=8\n"
                                "[2024-05-01 10:00:00,000] [INFO] [launch.py:165:main] Setting "
                                "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\n"),
                        "shape.stalled.launch");
    assert_string_equal(
        top(kb, "INFO 05-01 10:00:00 [gpu_model_runner.py:1000] Starting to load model /m/Qwen2-7B...\n"),
        "shape.stalled.engine-startup");
    assert_string_equal(top(kb, "INFO 05-01 10:00:00 [gpu_model_runner.py:1000] Starting to load model /m/Qwen2-7B...\n"
                                "INFO 05-01 10:00:30 [gpu_model_runner.py:1100] Model loading took 14.2 GiB and 20.1 "
                                "seconds\n"),
                        "");
    assert_string_equal(
        top(kb, "Map (num_proc=16):  46%|████▌     | 460000/1000000 [01:10<01:23, 6489.13 examples/s]\n"),
        "shape.stalled.dataset-map");
    assert_string_equal(
        top(kb, "Map (num_proc=16): 100%|██████████| 1000000/1000000 [02:30<00:00, 6600.00 examples/s]\n"), "");
    /* tf.data filling its shuffle buffer stalls the input; once filled, it does not. */
    assert_string_equal(top(kb, "I tensorflow/core/kernels/data/shuffle_dataset_op.cc:392] Filling up shuffle buffer "
                                "(this may take a while): 2851 of 10000\n"),
                        "shape.stalled.shuffle-buffer");
    assert_string_equal(top(kb, "Filling up shuffle buffer (this may take a while): 2851 of 10000\n"
                                "I tensorflow/core/kernels/data/shuffle_dataset_op.cc:417] Shuffle buffer filled.\n"
                                "step 1, loss: 2.3\n"),
                        "");
    /* pip compiling from source stalls; a built wheel ends that step. */
    assert_string_equal(top(kb, "Collecting flash-attn\nBuilding wheel for flash-attn (setup.py) ... -\n"),
                        "shape.stalled.wheel-build");
    assert_string_equal(top(kb,
                            "Building wheel for flash-attn (setup.py) ... done\nCreated wheel for flash-attn: "
                            "filename=flash_attn-2.5.8-cp310-cp310-linux_x86_64.whl\nSuccessfully built flash-attn\n"),
                        "");
    assert_string_equal(top(kb, "Epoch 1:   0%|          | 0/1000 [00:00<?, ?it/s]\n"), "shape.stalled.first-step");
    assert_string_equal(top(kb, "step 0\nstep 0 loss 2.31\n"), "");
    assert_string_equal(top(kb, "step 0\nTraining completed.\n"), "");
    /* A restore that finished and no step after it; a Done after an
     * ellipsis ends that step, not the run. */
    assert_string_equal(top(kb, "Trying to restore saved checkpoints from /data ...  Checkpoint found: /data/m.ckpt-1\n"
                                "  Restoring... Done.\n"),
                        "shape.stalled.after-restore");
    assert_string_equal(top(kb, "Restoring parameters from /data/m.ckpt-1\nstep 1, loss: 2.3\n"), "");
    assert_string_equal(
        top(kb, "model-00002-of-00004.safetensors:  37%|███▋      | 1.84G/4.98G [01:10<02:01, 25.9MB/s]\n"),
        "shape.stalled.dataset-download");
    assert_string_equal(top(kb, "The first epoch will be compiled for the graph, which may take a long time; You can "
                                "come back later :)\n"),
                        "shape.stalled.graph-compile");
    nd_kb_free(kb);
}

/* [shape.rate.*] and [shape.ratio.*]: numbers read from groups, rates of
 * one unit in one series, ratios with their bounds, and the parser's
 * problems. */
static void test_rate_ratio_format(void **state)
{
    (void)state;
    const char *v =
        "[shape.rate.r]\nunit = it/s\nscale = 1000\n"
        "value = ([0-9]+(\\.[0-9]+)?) ?it/s([^a-z]|$)\n"
        "inverse = per iteration \\(ms\\): *([0-9]+(\\.[0-9]+)?)\n"
        "skip = throughput\nexample = 2.5 it/s\ncounter = throughput 2.5 it/s\n"
        "[shape.ratio.q]\ncategory = input-bound\ntitle = q\nfix = f\nmin = 0.5\nmax = 1\ncount = 2\n"
        "part = reader_cost: ([0-9.]+)\npart = data: ([0-9.]+)\n"
        "whole = batch_cost: ([0-9.]+)\nwhole = (^|[^_])time: ([0-9.]+)\n"
        "example = reader_cost: 0.6 s, batch_cost: 0.9 s\ncounter = reader_cost: 0.1 s, batch_cost: 0.9 s\n";
    assert_int_equal(parse_problems(v), 0);
    struct nd_kb_ruleset set = {0};
    struct nd_strv problems = {0};
    nd_kb_parse_rules(&set, "v.rules", v, strlen(v), false, &problems);
    assert_int_equal(problems.n, 0);
    const struct nd_shape_entry *r = nd_kb_shape_find(&set.shape, ND_SHAPE_RATE, "r");
    const struct nd_shape_entry *q = nd_kb_shape_find(&set.shape, ND_SHAPE_RATIO, "q");
    assert_non_null(r);
    assert_non_null(q);
    double x = 0;
    /* The whole number, not the decimals' group nor the trailing one; value
     * times scale. */
    assert_true(nd_shape_rate_of(r, "[00:12<01:28, 12.75 it/s]", &x));
    assert_true(x > 12749.9 && x < 12750.1);
    /* A time per unit inverted: 1000 / 250 ms. */
    assert_true(nd_shape_rate_of(r, "elapsed time per iteration (ms): 250.0 |", &x));
    assert_true(x > 3.99 && x < 4.01);
    assert_false(nd_shape_rate_of(r, "elapsed time per iteration (ms): 0 |", &x)); /* no division by zero */
    assert_false(nd_shape_rate_of(r, "Avg throughput: 2.5 it/s", &x));             /* skip */
    assert_false(nd_shape_rate_of(r, "loss 2.5", &x));
    /* Ratios: each line pairs its own forms; data_time is no "time". */
    assert_true(nd_shape_ratio_of(q, "reader_cost: 0.3 s, batch_cost: 0.6 s", &x));
    assert_true(x > 0.499 && x < 0.501);
    assert_true(nd_shape_ratio_of(q, "eta: 1:00  time: 0.8000  data: 0.2000", &x));
    assert_true(x > 0.249 && x < 0.251);
    assert_false(nd_shape_ratio_of(q, "data_time: 0.2", &x));
    assert_false(nd_shape_ratio_of(q, "reader_cost: 0.3 s, batch_cost: 0 s", &x));
    size_t checked = 0;
    FILE *fp = fopen("/dev/null", "w");
    assert_int_equal(nd_kb_shape_test(&set.shape, fp, &checked), 0);
    assert_int_equal(checked, 4);
    fclose(fp);
    nd_strv_release(&problems);
    nd_kb_ruleset_release(&set);
    /* Problems: no unit, no number pattern, no min, min above max, bad
     * scale or count, a key of another kind. */
    assert_int_equal(parse_problems("[shape.rate.a]\nvalue = ([0-9]+) it/s\nexample = 1 it/s\n"), 1);
    assert_int_equal(parse_problems("[shape.rate.a]\nunit = x\nexample = 1 it/s\n"), 1);
    assert_int_equal(parse_problems("[shape.rate.a]\nunit = x\nscale = -1\nvalue = ([0-9]+)\nexample = 1\n"), 1);
    assert_int_equal(parse_problems("[shape.rate.a]\nunit = x\nvalue = ([0-9]+)\nexample = 1\nmin = 2\n"), 1);
    const char *ratio = "[shape.ratio.b]\ncategory = hang\ntitle = t\nfix = f\npart = a([0-9]+)\nwhole = b([0-9]+)\n"
                        "example = a1 b2\n";
    assert_int_equal(parse_problems(ratio), 1); /* no min */
    char *withmin = nd_xasprintf("%smin = 0.4\n", ratio);
    assert_int_equal(parse_problems(withmin), 0);
    free(withmin);
    char *inverted = nd_xasprintf("%smin = 0.4\nmax = 0.3\n", ratio);
    assert_int_equal(parse_problems(inverted), 1);
    free(inverted);
    char *badcount = nd_xasprintf("%smin = 0.4\ncount = 0\n", ratio);
    assert_int_equal(parse_problems(badcount), 1);
    free(badcount);
    /* The examples are checked: one outside the bounds fails. */
    struct nd_kb *kb = nd_test_kb("[t.r]\ncategory = hang\npattern = ZZTOP\ntitle = t\nfix = f\nexample = ZZTOP\n"
                                  "[shape.ratio.b]\ncategory = hang\ntitle = t\nfix = f\nmin = 0.6\n"
                                  "part = a([0-9]+)\nwhole = b([0-9]+)\nexample = a1 b2\n");
    fp = fopen("/dev/null", "w");
    checked = 0;
    assert_int_equal(nd_kb_test_examples(kb, fp, &checked), 1);
    fclose(fp);
    nd_kb_free(kb);
}

/* The built-in rates and ratios on the forms trainers print. */
static void test_builtin_rates(void **state)
{
    (void)state;
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    /* Megatron / MindSpeed iteration time that grows twenty-fold. */
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    for (int i = 1; i <= 12; i++)
        nd_strbuf_addf(&sb,
                       " iteration %8d/ 5000 | consumed samples: %8d | elapsed time per iteration (ms): %.1f | "
                       "learning rate: 1.000E-05 | lm loss: 8.1E+00 |\n",
                       i * 10, i * 640, i <= 9 ? 1200.0 + i : 26000.0 + i);
    assert_string_equal(top(kb, sb.buf), "shape.rate.rate-collapse");
    nd_strbuf_release(&sb);
    /* The same with a steady rate: nothing. */
    nd_strbuf_init(&sb);
    for (int i = 1; i <= 12; i++)
        nd_strbuf_addf(&sb, " iteration %8d/ 5000 | elapsed time per iteration (ms): %.1f | lm loss: 8.1E+00 |\n",
                       i * 10, 1200.0 + 30 * (i % 3));
    assert_string_equal(top(kb, sb.buf), "");
    nd_strbuf_release(&sb);
    /* Paddle's reader_cost against batch_cost. */
    nd_strbuf_init(&sb);
    for (int i = 1; i <= 4; i++)
        nd_strbuf_addf(&sb,
                       "[2024/05/01 10:00:%02d] ppocr INFO: epoch: [1/500], global_step: %d, lr: 0.001, loss: 3.2, "
                       "avg_reader_cost: 0.8%d s, avg_batch_cost: 1.0%d s, avg_samples: 32, ips: 31 samples/s\n",
                       i, i * 10, i, i);
    assert_string_equal(top(kb, sb.buf), "shape.rate.data-wait");
    nd_strbuf_release(&sb);
    /* A server's idle throughput lines are no collapse. */
    nd_strbuf_init(&sb);
    for (int i = 0; i < 12; i++)
        nd_strbuf_addf(&sb,
                       "INFO 05-01 10:%02d:00 metrics.py:351] Avg prompt throughput: %.1f tokens/s, Avg generation "
                       "throughput: %.1f tokens/s, Running: 0 reqs\n",
                       i, i < 6 ? 900.0 : 0.0, i < 6 ? 300.0 : 0.0);
    assert_string_equal(top(kb, sb.buf), "");
    nd_strbuf_release(&sb);
    nd_kb_free(kb);
}

/* Ranks whose last progress lines are an epoch apart: the ones that ran out
 * of data wait for the others. Ranks in the same epoch, or a run that then
 * reports its end, are no hang. */
static void test_ranks_out_of_step(void **state)
{
    (void)state;
    setenv("NPU_DOCTOR_CACHE_DIR", "", 1);
    struct nd_kb *kb = NULL;
    struct nd_error err = {0};
    assert_int_equal(nd_kb_load(&kb, NULL, 0, &err), 0);
    const char *apart = "[2024-03-01 10:00:01,100][INFO]:Rank:1 Epoch:[11][500/all] Loss 0.31\n"
                        "[2024-03-01 10:00:01,101][INFO]:Rank:0 Epoch:[12][500/all] Loss 0.29\n"
                        "[2024-03-01 10:00:01,102][INFO]:Rank:3 Epoch:[12][500/all] Loss 0.30\n"
                        "[2024-03-01 10:00:01,103][INFO]:Rank:2 Epoch:[11][500/all] Loss 0.33\n";
    assert_string_equal(top(kb, apart), "shape.ranks.ranks-out-of-step");
    assert_string_equal(top(kb, "[rank0]: epoch 3 step 120 loss 1.2\n"
                                "[rank1]: epoch 2 step 120 loss 1.3\n"),
                        "shape.ranks.ranks-out-of-step");
    assert_string_equal(top(kb, "[rank0]: epoch 3 step 120 loss 1.2\n"
                                "[rank1]: epoch 3 step 120 loss 1.3\n"),
                        "");
    /* One rank only: its epochs follow each other. */
    assert_string_equal(top(kb, "rank 0 epoch 3 step 999 loss 1.2\n"
                                "rank 0 epoch 4 step 1 loss 1.1\n"),
                        "");
    struct nd_strbuf sb = ND_STRBUF_INIT;
    nd_strbuf_init(&sb);
    nd_strbuf_addf(&sb, "%sTraining completed.\n", apart);
    assert_string_equal(top(kb, sb.buf), "");
    nd_strbuf_release(&sb);
    nd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pyspy_collective),
        cmocka_unit_test(test_faulthandler_and_gdb),
        cmocka_unit_test(test_ctrl_c_traceback),
        cmocka_unit_test(test_never_above_a_cause),
        cmocka_unit_test(test_last_step),
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_dumps),
        cmocka_unit_test(test_long_log_lines),
        cmocka_unit_test(test_parser_problems),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_builtin_vocabulary),
        cmocka_unit_test(test_ipython_traceback),
        cmocka_unit_test(test_rate_ratio_format),
        cmocka_unit_test(test_builtin_rates),
        cmocka_unit_test(test_ranks_out_of_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
