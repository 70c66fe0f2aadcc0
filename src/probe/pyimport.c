/* Level 2 Python probe: runs a short script with the job's environment in a
 * child with a deadline and judges what it printed. The script always prints
 * one JSON line after a marker, whatever fails, so a failed import is data. */
#include "probe/pyimport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_util.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "kb/kb.h"
#include "probe/pathfmt.h"

#define ND_PROBE_MARK "ND-PROBE-JSON:"

static const char nd_probe_script[] =
    "import sys, json, time, traceback\n"
    "r = {'python': sys.version.split()[0], 'executable': sys.executable}\n"
    "def tail():\n"
    "    return ''.join(traceback.format_exc().splitlines(True)[-15:])\n"
    "def imp(key, name):\n"
    "    t = time.time()\n"
    "    try:\n"
    "        m = __import__(name)\n"
    "        r[key] = {'ok': True, 's': round(time.time() - t, 3)}\n"
    "        return m\n"
    "    except BaseException as e:\n"
    "        r[key] = {'ok': False, 's': round(time.time() - t, 3), 'error': '%s: %s' % (type(e).__name__, e),\n"
    "                  'traceback': tail()}\n"
    "        return None\n"
    "def emit():\n"
    "    sys.stdout.write('\\n" ND_PROBE_MARK "' + json.dumps(r) + '\\n')\n"
    "    sys.stdout.flush()\n"
    "try:\n"
    "    want_npu = 'npu' in sys.argv[1:]\n"
    "    want_tbe = 'tbe' in sys.argv[1:]\n"
    "    torch = imp('torch', 'torch')\n"
    "    npu = None\n"
    "    if torch is not None:\n"
    "        r['torch']['version'] = str(torch.__version__)\n"
    "        r['torch']['cuda'] = getattr(torch.version, 'cuda', None)\n"
    "        try:\n"
    "            r['cuda'] = {'available': bool(torch.cuda.is_available()), 'count': int(torch.cuda.device_count())}\n"
    "        except BaseException as e:\n"
    "            r['cuda'] = {'available': False, 'count': 0, 'error': '%s: %s' % (type(e).__name__, e)}\n"
    "        if want_npu:\n"
    "            npu = imp('torch_npu', 'torch_npu')\n"
    "            if npu is not None:\n"
    "                r['torch_npu']['version'] = str(getattr(npu, '__version__', ''))\n"
    "                try:\n"
    "                    r['npu'] = {'available': bool(torch.npu.is_available()), 'count': "
    "int(torch.npu.device_count())}\n"
    "                except BaseException as e:\n"
    "                    r['npu'] = {'available': False, 'count': 0, 'error': '%s: %s' % (type(e).__name__, e)}\n"
    "        dev = 'cpu'\n"
    "        if r.get('npu', {}).get('available'):\n"
    "            dev = 'npu:0'\n"
    "        elif r['cuda'].get('available'):\n"
    "            dev = 'cuda:0'\n"
    "        try:\n"
    "            x = torch.ones(2, 2, device=dev)\n"
    "            v = float((x @ x).sum().item())\n"
    "            r['op'] = {'device': dev, 'ok': v == 8.0, 'value': v}\n"
    "        except BaseException as e:\n"
    "            r['op'] = {'device': dev, 'ok': False, 'error': '%s: %s' % (type(e).__name__, e), 'traceback': "
    "tail()}\n"
    "    if want_tbe:\n"
    "        imp('tbe', 'tbe')\n"
    "finally:\n"
    "    emit()\n";

json_t *nd_pyimport_parse_output(const char *out, size_t len)
{
    if (!out)
        return NULL;
    const char *last = NULL;
    for (const char *p = out; p < out + len;) {
        const char *hit = memmem(p, (size_t)(out + len - p), ND_PROBE_MARK, sizeof ND_PROBE_MARK - 1);
        if (!hit)
            break;
        last = hit;
        p = hit + 1;
    }
    if (!last)
        return NULL;
    const char *s = last + sizeof ND_PROBE_MARK - 1;
    size_t rest = len - (size_t)(s - out);
    const char *nl = memchr(s, '\n', rest);
    size_t n = nl ? (size_t)(nl - s) : rest;
    json_t *j = json_loadb(s, n, 0, NULL);
    if (j && !json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static char *nd_tail_lines(const char *s, size_t len, int lines)
{
    if (!s || !len)
        return NULL;
    size_t end = len;
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    int seen = 0;
    while (start > 0) {
        if (s[start - 1] == '\n' && ++seen == lines)
            break;
        start--;
    }
    if (end - start > 4000)
        start = end - 4000;
    return nd_xstrndup(s + start, end - start);
}

int nd_pyimport_run(const char *python, const struct nd_environ *env, bool try_npu, bool try_tbe, double timeout_s,
                    struct nd_pyimport *out)
{
    memset(out, 0, sizeof *out);
    nd_pfmt(out->python, sizeof out->python, "%s", python);
    char *argv[8];
    int k = 0;
    argv[k++] = (char *)python;
    argv[k++] = "-c";
    argv[k++] = (char *)nd_probe_script;
    if (try_npu)
        argv[k++] = "npu";
    if (try_tbe)
        argv[k++] = "tbe";
    argv[k] = NULL;
    char **envp = nd_environ_envp(env);
    struct nd_spawn_result res;
    struct nd_error err;
    int rc = nd_spawn_capture(argv, envp, timeout_s, 1u << 20, &res, &err);
    nd_environ_envp_free(envp);
    if (rc < 0) {
        nd_pfmt(out->status, sizeof out->status, "could not be started: %s", err.msg);
        return 0;
    }
    out->ran = res.started;
    out->timed_out = res.timed_out;
    out->crashed = res.signaled && !res.timed_out;
    out->elapsed_s = res.elapsed_s;
    nd_spawn_describe(&res, timeout_s, out->status, sizeof out->status);
    out->result = nd_pyimport_parse_output(res.out, res.out_len);
    out->stderr_tail = nd_tail_lines(res.err, res.err_len, 12);
    nd_spawn_result_release(&res);
    return 0;
}

void nd_pyimport_release(struct nd_pyimport *p)
{
    json_decref(p->result);
    free(p->stderr_tail);
    p->result = NULL;
    p->stderr_tail = NULL;
}

/* Adds f to the report, or merges its evidence into a finding with the same id. */
static void nd_merge_finding(struct nd_report *rep, const struct nd_finding *f)
{
    struct nd_finding *have = nd_findings_find(&rep->findings, f->id);
    if (!have) {
        nd_findings_add_copy(&rep->findings, f);
        return;
    }
    for (size_t i = 0; i < f->nevidence; i++)
        nd_finding_add_evidence(have, f->evidence[i].file, f->evidence[i].line, "%s", f->evidence[i].text);
}

/* Explains an import error: knowledge base first, built-in table second,
 * else a generic finding that carries the traceback tail. */
static void nd_explain_import(struct nd_report *rep, const char *what, json_t *imp, const char *set_env,
                              const char *python)
{
    const char *error = nd_json_get_str(imp, "error");
    const char *tb = nd_json_get_str(imp, "traceback");
    struct nd_strbuf text = ND_STRBUF_INIT;
    nd_strbuf_init(&text);
    nd_strbuf_addf(&text, "%s\n%s\n", tb ? tb : "", error ? error : "");
    struct nd_findings tmp = ND_FINDINGS_INIT;
    struct nd_kb *kb = NULL;
    struct nd_error err;
    if (nd_kb_load(&kb, NULL, 0, &err) == 0) {
        nd_kb_explain_buffer(kb, "python probe", text.buf, text.len, &tmp, &err);
        nd_kb_free(kb);
    }
    size_t used = 0;
    for (size_t i = 0; i < tmp.n && used < 2; i++)
        if (tmp.v[i]->severity >= ND_SEV_WARNING) {
            nd_merge_finding(rep, tmp.v[i]);
            used++;
        }
    nd_findings_release(&tmp);
    if (!used) {
        struct nd_findings t2 = ND_FINDINGS_INIT;
        if (nd_import_error_explain(text.buf, set_env, &t2)) {
            nd_merge_finding(rep, t2.v[0]);
            used++;
        }
        nd_findings_release(&t2);
    }
    if (!used) {
        char id[64];
        nd_pfmt(id, sizeof id, "python.import-%s-failed", what);
        for (char *p = id; *p; p++)
            if (*p == '_')
                *p = '-';
        struct nd_finding *f = nd_findings_add(&rep->findings, id, ND_CAT_CONFIG, ND_SEV_ERROR, "import %s fails", what);
        nd_finding_add_evidence(f, NULL, 0, "%s", error ? error : "(no message)");
        if (tb && *tb) {
            char *copy = nd_xstrdup(tb);
            char *save = NULL;
            for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                nd_finding_add_evidence(f, NULL, 0, "%s", l);
            free(copy);
        }
        nd_finding_add_fix(f, "run it by hand for the whole traceback: %s -c 'import %s'", python, what);
    }
    nd_strbuf_release(&text);
}

/* obj[key] as a string, or def. */
static const char *nd_jstr(const json_t *obj, const char *key, const char *def)
{
    const char *v = nd_json_get_str(obj, key);
    return v ? v : def;
}

static bool nd_obj_ok(json_t *o)
{
    return json_is_true(json_object_get(o, "ok"));
}

void nd_pyimport_judge(const struct nd_pyimport *p, double timeout_s, bool ascend, bool nvidia, const char *set_env,
                       struct nd_report *rep)
{
    const char *area = "Python imports";
    if (!p->ran) {
        nd_report_line(rep, area, ND_CHECK_FAIL, "the Python probe %s", p->status);
        struct nd_finding *f = nd_findings_add(&rep->findings, "python.probe-failed", ND_CAT_CONFIG, ND_SEV_ERROR,
                                               "the Python interpreter %s", p->status);
        nd_finding_add_evidence(f, NULL, 0, "%s", p->status);
        nd_finding_add_fix(f, "check the interpreter: npu-doctor check --python /path/to/python");
        return;
    }
    if (p->timed_out || p->crashed || !p->result) {
        const char *id = p->timed_out ? "python.probe-timeout"
                         : p->crashed ? "python.probe-crashed"
                                      : "python.probe-failed";
        nd_report_line(rep, area, ND_CHECK_FAIL, "the Python probe %s", p->status);
        struct nd_finding *f = nd_findings_add(&rep->findings, id, p->timed_out ? ND_CAT_HANG : ND_CAT_CONFIG,
                                               ND_SEV_ERROR, "the Python import probe %s", p->status);
        nd_finding_add_evidence(f, NULL, 0, "import torch%s %s", ascend ? " / torch_npu" : "", p->status);
        if (p->stderr_tail && *p->stderr_tail) {
            char *copy = nd_xstrdup(p->stderr_tail);
            char *save = NULL;
            for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                nd_finding_add_evidence(f, NULL, 0, "%s", l);
            free(copy);
        }
        if (p->timed_out) {
            nd_finding_set_cause(f,
                                 "Importing the framework or opening the device did not finish in %.0f s: a device "
                                 "or driver that does not answer, or a very slow file system.",
                                 timeout_s);
            nd_finding_add_fix(f, "check the devices (npu-smi info / nvidia-smi), then retry with --timeout 120");
        } else {
            nd_finding_set_cause(f, "The interpreter died while importing: often a native library that does not "
                                    "belong to the installed framework.");
            nd_finding_add_fix(f, "run %s -c 'import torch' by hand to see the full error", p->python);
            if (p->stderr_tail)
                nd_import_error_explain(p->stderr_tail, set_env, &rep->findings);
        }
        return;
    }
    json_t *r = p->result;
    json_t *torch = json_object_get(r, "torch");
    if (!nd_obj_ok(torch)) {
        nd_report_line(rep, area, ND_CHECK_FAIL, "import torch fails: %s", nd_jstr(torch, "error", "?"));
        nd_explain_import(rep, "torch", torch, set_env, p->python);
        return;
    }
    json_t *cuda = json_object_get(r, "cuda");
    nd_report_line(rep, area, ND_CHECK_OK, "torch %s imports (%.1f s)", nd_jstr(torch, "version", "?"),
                   json_number_value(json_object_get(torch, "s")));
    bool cuda_av = json_is_true(json_object_get(cuda, "available"));
    long cuda_n = (long)json_integer_value(json_object_get(cuda, "count"));
    bool npu_av = false;
    long npu_n = 0;
    json_t *tnpu = json_object_get(r, "torch_npu");
    if (tnpu) {
        if (!nd_obj_ok(tnpu)) {
            nd_report_line(rep, area, ND_CHECK_FAIL, "import torch_npu fails: %s", nd_jstr(tnpu, "error", "?"));
            nd_explain_import(rep, "torch_npu", tnpu, set_env, p->python);
        } else {
            json_t *npu = json_object_get(r, "npu");
            npu_av = json_is_true(json_object_get(npu, "available"));
            npu_n = (long)json_integer_value(json_object_get(npu, "count"));
            nd_report_line(rep, area, npu_av ? ND_CHECK_OK : ND_CHECK_FAIL,
                           "torch_npu %s: torch.npu.is_available() = %s, "
                           "%ld device%s",
                           nd_jstr(tnpu, "version", "?"), npu_av ? "True" : "False", npu_n, npu_n == 1 ? "" : "s");
        }
    }
    if (nvidia || cuda_av || nd_json_get_str(torch, "cuda"))
        nd_report_line(rep, area, cuda_av ? ND_CHECK_OK : (nvidia ? ND_CHECK_FAIL : ND_CHECK_INFO),
                       "torch.cuda.is_available() = %s, %ld device%s", cuda_av ? "True" : "False", cuda_n,
                       cuda_n == 1 ? "" : "s");
    if (ascend && nd_obj_ok(tnpu) && !npu_av) {
        struct nd_finding *f = nd_findings_add(&rep->findings, "python.npu-unavailable", ND_CAT_CPU_FALLBACK,
                                               ND_SEV_ERROR, "torch_npu imports but sees no NPU");
        nd_finding_add_evidence(f, NULL, 0, "torch.npu.is_available() = False, device_count() = %ld", npu_n);
        json_t *npu = json_object_get(r, "npu");
        if (nd_json_get_str(npu, "error"))
            nd_finding_add_evidence(f, NULL, 0, "%s", nd_json_get_str(npu, "error"));
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, "aclrtGetDeviceCount failed (driver, device files, visible devices or the CANN env); "
                                "accelerate and transformers then put the model on the CPU without a word.");
        if (set_env && *set_env)
            nd_finding_add_fix(f, "source %s, then check npu-smi info and ASCEND_RT_VISIBLE_DEVICES", set_env);
        else
            nd_finding_add_fix(f, "check npu-smi info, the device files and ASCEND_RT_VISIBLE_DEVICES");
    }
    if (nvidia && !cuda_av) {
        struct nd_finding *f = nd_findings_add(&rep->findings, "python.cuda-unavailable", ND_CAT_CPU_FALLBACK,
                                               ND_SEV_ERROR, "torch sees no GPU on a host with NVIDIA GPUs");
        nd_finding_add_evidence(f, NULL, 0, "torch.cuda.is_available() = False (torch %s, CUDA %s)",
                                nd_jstr(torch, "version", "?"), nd_jstr(torch, "cuda", "none"));
        if (nd_json_get_str(cuda, "error"))
            nd_finding_add_evidence(f, NULL, 0, "%s", nd_json_get_str(cuda, "error"));
        f->confidence = ND_CONF_HIGH;
        nd_finding_set_cause(f, nd_json_get_str(torch, "cuda") ? "CUDA initialisation failed: driver too old, GPUs "
                                                                 "hidden, or the container lacks the GPU runtime."
                                                               : "torch is a CPU-only build.");
        nd_finding_add_fix(f, nd_json_get_str(torch, "cuda") ? "check nvidia-smi and CUDA_VISIBLE_DEVICES"
                                                             : "install a CUDA build of torch");
    }
    if (!ascend && !nvidia && !cuda_av && !npu_av) {
        nd_report_line(rep, area, ND_CHECK_INFO, "no accelerator: jobs started here run on the CPU");
        struct nd_finding *f = nd_findings_add(
            &rep->findings, "python.no-accelerator", ND_CAT_NO_DEVICE, ND_SEV_INFO,
            "torch imports, but this machine has no NPU or GPU: jobs run on the CPU");
        nd_finding_add_evidence(f, NULL, 0, "torch %s; torch.cuda.is_available() = False%s",
                                nd_jstr(torch, "version", "?"), tnpu ? ", no NPU" : "");
    }
    json_t *op = json_object_get(r, "op");
    if (op) {
        const char *dev = nd_jstr(op, "device", "?");
        if (nd_obj_ok(op)) {
            nd_report_line(rep, area, ND_CHECK_OK, "tensor op on %s works", dev);
        } else {
            nd_report_line(rep, area, ND_CHECK_FAIL, "tensor op on %s fails", dev);
            struct nd_finding *f = nd_findings_add(&rep->findings, "python.tensor-op-failed", ND_CAT_DEVICE_FAULT,
                                                   ND_SEV_ERROR, "a 2x2 matrix product on %s fails", dev);
            nd_finding_add_evidence(f, NULL, 0, "%s", nd_jstr(op, "error", "wrong result"));
            nd_finding_add_fix(f,
                               "run the same operation by hand and read the device log (/var/log/npu/slog or dmesg)");
            if (nd_json_get_str(op, "traceback"))
                nd_import_error_explain(nd_json_get_str(op, "traceback"), set_env, &rep->findings);
        }
    }
    json_t *tbe = json_object_get(r, "tbe");
    if (tbe) {
        if (nd_obj_ok(tbe)) {
            nd_report_line(rep, area, ND_CHECK_OK, "import tbe works");
        } else {
            nd_report_line(rep, area, ND_CHECK_FAIL, "import tbe fails: %s", nd_jstr(tbe, "error", "?"));
            nd_explain_import(rep, "tbe", tbe, set_env, p->python);
        }
    }
}
