/* exit: what the job's end status means (an OOM kill, a crash, a bus error
 * from a too small /dev/shm...). Called once, when the job is gone. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "monitor/detect.h"

static bool nd_oom_rose(const struct nd_series *s)
{
    const struct nd_sample *a = nd_series_first(s), *b = nd_series_last(s);
    return a && b && a->oom_kill >= 0 && b->oom_kill > a->oom_kill;
}

static void nd_exit_shm(const struct nd_series *s, const struct nd_detect_context *ctx,
                        const struct nd_exit_info *ex, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    struct nd_finding *f = nd_findings_add(out, "exit.bus-error-shm", ND_CAT_HOST_OOM, ND_SEV_ERROR,
                                           "A bus error ended the job: /dev/shm is too small for the DataLoader");
    f->at_s = b ? b->t : 0;
    f->confidence = ctx->dataloader_bus_error ? ND_CONF_HIGH : ND_CONF_MEDIUM;
    if (ex->signaled)
        nd_finding_add_evidence(f, NULL, 0, "the job died from SIGBUS (exit status %d)", 128 + ex->signal);
    else
        nd_finding_add_evidence(f, NULL, 0, "the job exited with status %d", ex->code);
    if (ctx->dataloader_bus_error)
        nd_finding_add_evidence(f, "output", 0, "%s", ctx->dataloader_line);
    nd_finding_set_cause(f, "DataLoader workers pass batches through shared memory (/dev/shm); when it is full, "
                            "touching the mapping raises SIGBUS. Containers get 64 MiB by default.");
    nd_finding_add_fix(f, "docker run --shm-size=16g ... (Kubernetes: an emptyDir with medium: Memory on /dev/shm)");
    nd_finding_add_fix(f, "or DataLoader(num_workers=0) to confirm");
}

void nd_detect_exit(const struct nd_series *s, const struct nd_detect_context *ctx,
                    const struct nd_exit_info *ex, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    double at = b ? b->t : 0;
    if (ctx->dataloader_bus_error || (ex->signaled && ex->signal == SIGBUS)) {
        if (!(ex->exited && ex->code == 0))
            nd_exit_shm(s, ctx, ex, out);
        return;
    }
    if (!ex->signaled || ex->stopped_by_us)
        return;
    struct nd_finding *f = NULL;
    switch (ex->signal) {
    case SIGKILL:
        if (nd_oom_rose(s)) {
            f = nd_findings_add(out, "exit.oom-killed", ND_CAT_HOST_OOM, ND_SEV_ERROR,
                                "The kernel OOM killer ended the job (SIGKILL)");
            nd_finding_add_evidence(f, NULL, 0, "died from SIGKILL (exit status 137); cgroup oom_kill went from %lld to %lld",
                                    (long long)nd_series_first(s)->oom_kill, (long long)b->oom_kill);
            nd_finding_set_cause(f, "The job's cgroup ran out of host memory.");
            nd_finding_add_fix(f, "raise the memory limit (docker --memory, Kubernetes limits, Slurm --mem)");
            nd_finding_add_fix(f, "lower num_workers / batch size; look for host memory growing per step");
        } else {
            f = nd_findings_add(out, "exit.killed", ND_CAT_CONFIG, ND_SEV_WARNING,
                                "The job was killed with SIGKILL from outside");
            f->confidence = ND_CONF_LOW;
            nd_finding_add_evidence(f, NULL, 0, "died from SIGKILL (exit status 137); the cgroup OOM counter did not move");
            nd_finding_set_cause(f, "A scheduler limit (Slurm time or memory, Kubernetes eviction), the host OOM "
                                    "killer outside the cgroup, or a person.");
            nd_finding_add_fix(f, "dmesg | grep -i -e oom -e killed; sacct -j $SLURM_JOB_ID -o State,MaxRSS");
        }
        break;
    case SIGSEGV:
        f = nd_findings_add(out, "exit.segfault", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR,
                            "The job crashed with a segmentation fault");
        f->confidence = ND_CONF_MEDIUM;
        nd_finding_add_evidence(f, NULL, 0, "died from SIGSEGV (exit status 139)");
        nd_finding_set_cause(f, "Native code crashed: a C extension, a framework or operator library, or a driver "
                                "(mismatched versions are a common reason).");
        nd_finding_add_fix(f, "python3 -X faulthandler train.py   # prints the Python stack at the crash");
        nd_finding_add_fix(f, "npu-doctor check   # version mismatches between driver, CANN/CUDA and torch");
        break;
    case SIGABRT:
        f = nd_findings_add(out, "exit.abort", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR,
                            "The job aborted (SIGABRT)");
        f->confidence = ND_CONF_LOW;
        nd_finding_add_evidence(f, NULL, 0, "died from SIGABRT (exit status 134)");
        nd_finding_set_cause(f, "A native library hit an assertion or an uncaught C++ exception; the last lines of "
                                "stderr say which.");
        nd_finding_add_fix(f, "npu-doctor explain LOGFILE   # on the job's saved output");
        break;
    case SIGINT:
    case SIGTERM:
    case SIGHUP:
        return;   /* asked to stop: not a problem of the job */
    default:
        f = nd_findings_add(out, "exit.signal", ND_CAT_CONFIG, ND_SEV_WARNING, "The job died from signal %d (%s)",
                            ex->signal, strsignal(ex->signal));
        f->confidence = ND_CONF_LOW;
        nd_finding_add_evidence(f, NULL, 0, "exit status %d", 128 + ex->signal);
        break;
    }
    if (f)
        f->at_s = at;
}
