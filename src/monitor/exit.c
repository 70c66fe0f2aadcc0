/* exit: what the job's end status means (an OOM kill, a crash, a bus error
 * from a too small /dev/shm...). Called once, when the job is gone. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/exitcode.h"
#include "core/redact.h"
#include "monitor/detect.h"

static bool nd_oom_rose(const struct nd_series *s)
{
    const struct nd_sample *a = nd_series_first(s), *b = nd_series_last(s);
    return a && b && a->oom_kill >= 0 && b->oom_kill > a->oom_kill;
}

static const char *nd_signame(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGPIPE: return "SIGPIPE";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    default: return "a signal";
    }
}

bool nd_exit_line_is_host_oom(const char *line)
{
    if (!line)
        return false;
    /* Device OOMs say whose memory: those are device-oom, from the knowledge base. */
    if (strstr(line, "NPU") || strstr(line, "CUDA") || strstr(line, "HBM") || strstr(line, "device"))
        return false;
    return strstr(line, "MemoryError") || strstr(line, "Cannot allocate memory") || strstr(line, "bad_alloc") ||
           strstr(line, "DefaultCPUAllocator: can't allocate memory") || strstr(line, "out of memory");
}

/* The job stopped on a host allocation failure: name the limit that bit. */
static void nd_exit_host_memory(const struct nd_series *s, const struct nd_detect_context *ctx,
                                const struct nd_exit_info *ex, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    char *line = nd_redact_text(ex->last_error);
    struct nd_finding *f;
    double peak = (double)ctx->peak_rss / 1048576.0;
    if (ctx->rlimit_as) {
        f = nd_findings_add(out, "exit.rlimit-as", ND_CAT_HOST_OOM, ND_SEV_ERROR,
                            "The job ran out of address space: ulimit -v (RLIMIT_AS) is %.1f GiB",
                            (double)ctx->rlimit_as / 1073741824.0);
        f->confidence = ND_CONF_HIGH;
        nd_finding_add_evidence(f, "output", ex->last_error_line, "%s", line);
        nd_finding_add_evidence(f, NULL, 0, "Max address space of the job: %llu bytes; its RSS peaked at %.0f MiB",
                                (unsigned long long)ctx->rlimit_as, peak);
        nd_finding_set_cause(f, "The address-space limit counts every mapping (the framework's libraries, "
                                "thread stacks, reserved arenas), not only memory in use, so an ML job hits it long "
                                "before the host runs out.");
        nd_finding_add_fix(f, "ulimit -v unlimited   # before starting the job; or raise it in limits.conf / "
                              "the scheduler (Slurm: --propagate=NONE, or drop AS from PropagateResourceLimits)");
        nd_finding_add_fix(f, "use a memory limit that counts memory in use instead: the cgroup's memory.max "
                              "(docker --memory, Slurm --mem)");
    } else {
        f = nd_findings_add(out, "exit.host-memory", ND_CAT_HOST_OOM, ND_SEV_ERROR,
                            "The job failed to allocate host memory");
        f->confidence = ND_CONF_MEDIUM;
        nd_finding_add_evidence(f, "output", ex->last_error_line, "%s", line);
        if (b && b->cg_mem_max)
            nd_finding_add_evidence(f, NULL, 0, "cgroup %s: %.0f MiB; the job's RSS peaked at %.0f MiB",
                                    nd_cgroup_limit_file(ctx), (double)b->cg_mem_max / 1048576.0, peak);
        else
            nd_finding_add_evidence(f, NULL, 0,
                                    "no address-space or cgroup limit seen; the job's RSS peaked at "
                                    "%.0f MiB",
                                    peak);
        nd_finding_set_cause(f, "The host (or the job's cgroup) had no memory left for the allocation.");
        nd_finding_add_fix(f, "raise the memory limit (docker --memory, Kubernetes limits, Slurm --mem), or lower "
                              "batch size / num_workers");
    }
    f->at_s = b ? b->t : 0;
    free(line);
}

/* A normal exit with a non-zero code: never "no problems found". The last
 * error line the job printed says what; without one, what the code means. */
static void nd_exit_code(const struct nd_series *s, const struct nd_exit_info *ex, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    /* Lines from the job may carry secrets (a token in a URL). */
    char *err = ex->last_error && ex->last_error[0] ? nd_redact_text(ex->last_error) : NULL;
    char *last = ex->last_line && ex->last_line[0] ? nd_redact_text(ex->last_line) : NULL;
    struct nd_finding *f;
    if (ex->code == 127) {
        f = nd_findings_add(out, "exit.not-found", ND_CAT_CONFIG, ND_SEV_ERROR,
                            "The job exited with status 127: a command was not found");
        nd_finding_set_cause(f, "A shell (or the job's launcher) could not find a program it was told to run: a "
                                "typo, or a PATH without the environment's bin directory.");
        nd_finding_add_fix(f, "command -v PROGRAM   # in the job's environment; activate the venv/conda env first");
    } else if (ex->code == 126) {
        f = nd_findings_add(out, "exit.not-executable", ND_CAT_CONFIG, ND_SEV_ERROR,
                            "The job exited with status 126: a command was found but could not be executed");
        nd_finding_set_cause(f, "The file is not executable, is a directory, or has a bad interpreter line.");
        nd_finding_add_fix(f, "chmod +x SCRIPT, or run it through its interpreter: python3 SCRIPT");
    } else if (ex->code > 128 && ex->code < 128 + 65) {
        f = nd_findings_add(out, "exit.child-signal", ND_CAT_CONFIG, ND_SEV_ERROR,
                            "The job exited with status %d: a command inside it died from %s (signal %d)", ex->code,
                            nd_signame(ex->code - 128), ex->code - 128);
        nd_finding_set_cause(f, "A shell or launcher reports 128+N when the program it ran was killed by signal N.");
        if (ex->code - 128 == SIGKILL)
            nd_finding_add_fix(f, "dmesg | grep -i -e oom -e killed   # the OOM killer sends SIGKILL");
    } else {
        f = nd_findings_add(out, "exit.failed", ND_CAT_CONFIG, ND_SEV_ERROR, "The job failed with exit status %d%s%s",
                            ex->code, err ? ": " : "", err ? err : "");
        if (err)
            nd_finding_set_cause(f, "The job stopped on the error it printed last; see the findings above for what "
                                    "the knowledge base knows of it.");
        else if (ex->code == 2 && last)
            nd_finding_set_cause(f, "Exit status 2 is what Python and most tools give for a usage error or a file "
                                    "that does not exist.");
        else
            nd_finding_set_cause(f, "The job reported failure without an error line the monitor could recognise.");
        nd_finding_add_fix(f, "npu-doctor explain LOGFILE   # on the job's saved output, for the root cause");
    }
    f->at_s = b ? b->t : 0;
    f->confidence = err ? ND_CONF_MEDIUM : ND_CONF_LOW;
    if (err && ex->last_error_line > 0)
        nd_finding_add_evidence(f, "output", ex->last_error_line, "%s", err);
    else if (err)
        nd_finding_add_evidence(f, "output", 0, "%s", err);
    else if (last)
        nd_finding_add_evidence(f, "output", 0, "last line: %s", last);
    else
        nd_finding_add_evidence(f, NULL, 0, "exit status %d; the job printed nothing", ex->code);
    free(err);
    free(last);
}

/* Exit 0 after a Python traceback: a wrapper (try/except that prints, a
 * launcher that drops its worker's status) turned a failure into success. */
static void nd_exit_masked(const struct nd_series *s, const struct nd_exit_info *ex, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    char *line = nd_redact_text(ex->traceback_error);
    struct nd_finding *f = nd_findings_add(out, "exit.masked-failure", ND_CAT_CONFIG, ND_SEV_WARNING,
                                           "The job exited 0, but it printed a Python traceback: %s", line);
    f->at_s = b ? b->t : 0;
    f->confidence = ND_CONF_MEDIUM;
    nd_finding_add_evidence(f, "output", ex->traceback_line, "%s", line);
    nd_finding_add_evidence(f, NULL, 0, "exit status 0");
    nd_finding_set_cause(f, "An exception was caught, printed and then ignored (an except block that logs and "
                            "goes on, a wrapper or launcher returning success): schedulers and scripts see a "
                            "success, and the run may have skipped work or gone on in a degraded mode.");
    nd_finding_add_fix(f, "re-raise after logging (raise), or sys.exit(1) in that except block");
    nd_finding_add_fix(f, "npu-doctor explain LOGFILE   # on the job's saved output, for what the exception means");
    free(line);
}

static const char *nd_signame(int sig);

void nd_detect_describe_child_exits(const struct nd_detect_context *ctx, size_t max, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ctx->nchild_exits && i < max && used + 1 < size; i++) {
        const struct nd_child_exit *c = &ctx->child_exits[i];
        char how[48];
        if (WIFSIGNALED(c->ws))
            snprintf(how, sizeof how, "died from %s", nd_signame(WTERMSIG(c->ws)));
        else
            snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(c->ws));
        int n = snprintf(buf + used, size - used, "%spid %d %s%s%s%s: %s", i ? "; " : "", (int)c->pid, c->cmd,
                         c->rank[0] ? " (rank " : "", c->rank, c->rank[0] ? ")" : "", how);
        if (n < 0)
            break;
        used += (size_t)n;
        if (used >= size)
            used = size - 1;
    }
    if (ctx->nchild_exits > max && used + 1 < size)
        snprintf(buf + used, size - used, "; and %zu more", ctx->nchild_exits - max);
}

/* Where the statuses listed (the first max) came from: the kernel's exit
 * notices, or a zombie its parent had not reaped yet (where no notices can
 * be heard, or before one came). */
static const char *nd_child_exits_source(const struct nd_detect_context *ctx, size_t max)
{
    size_t zombies = 0, n = ctx->nchild_exits < max ? ctx->nchild_exits : max;
    for (size_t i = 0; i < n; i++)
        zombies += ctx->child_exits[i].zombie;
    if (zombies == 0)
        return "the kernel's exit notices";
    if (zombies == n)
        return n == 1 ? "the status its unreaped zombie kept" : "the statuses their unreaped zombies kept";
    return "the kernel's exit notices and unreaped zombies";
}

/* The main process exited 0 while other processes of the job failed: a
 * launcher that does not pass a rank's failure on. */
static void nd_exit_children(const struct nd_series *s, const struct nd_detect_context *ctx, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    const struct nd_child_exit *c = &ctx->child_exits[0];
    struct nd_finding *f;
    char how[48];
    if (WIFSIGNALED(c->ws))
        snprintf(how, sizeof how, "died from %s", nd_signame(WTERMSIG(c->ws)));
    else
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(c->ws));
    if (ctx->nchild_exits == 1)
        f = nd_findings_add(out, "exit.child-failed", ND_CAT_CONFIG, ND_SEV_WARNING,
                            "The job exited 0, but one of its processes %s: pid %d%s%s", how, (int)c->pid,
                            c->rank[0] ? ", rank " : "", c->rank);
    else
        f = nd_findings_add(out, "exit.child-failed", ND_CAT_CONFIG, ND_SEV_WARNING,
                            "The job exited 0, but %zu of its processes failed", ctx->nchild_exits);
    f->at_s = b ? b->t : 0;
    f->confidence = ND_CONF_HIGH;
    char all[768];
    nd_detect_describe_child_exits(ctx, 4, all, sizeof all);
    nd_finding_add_evidence(f, NULL, 0, "%s: %s", nd_child_exits_source(ctx, 4), all);
    nd_finding_add_evidence(f, NULL, 0, "the main process exited with status 0");
    nd_finding_set_cause(f, "The main process (a launcher, a wrapper script, a parent waiting on its workers) "
                            "ended with success although a process under it failed; SIGKILL usually comes from "
                            "the OOM killer or a scheduler limit.");
    nd_finding_add_fix(f, "make the launcher return its workers' status (torchrun does; a shell script: set -e, "
                          "wait PID and check $?)");
    nd_finding_add_fix(f, "dmesg | grep -i -e oom -e killed   # for a SIGKILL");
}

static void nd_exit_shm(const struct nd_series *s, const struct nd_detect_context *ctx, const struct nd_exit_info *ex,
                        struct nd_findings *out)
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

/* run --timeout ran out: the job did not finish in the time it was given.
 * Said as such, instead of the SIGTERM or SIGKILL that ended it reading
 * like a stop from outside. */
static void nd_exit_timeout(const struct nd_series *s, const struct nd_exit_info *ex, struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    struct nd_finding *f = nd_findings_add(out, "exit.timeout", ND_CAT_CONFIG, ND_SEV_WARNING,
                                           "The job was stopped by the timeout (--timeout %g s) before it finished",
                                           ex->timeout_s);
    nd_finding_add_evidence(f, NULL, 0,
                            "still running after %g s: its process tree got SIGTERM, then SIGKILL after "
                            "the grace (--grace)",
                            ex->timeout_s);
    if (ex->signaled)
        nd_finding_add_evidence(f, NULL, 0, "it ended from %s (exit status %d); npu-doctor returns %d",
                                nd_signame(ex->signal), 128 + ex->signal, ND_EXIT_TIMEOUT);
    else if (ex->exited)
        nd_finding_add_evidence(f, NULL, 0, "it exited with status %d on the SIGTERM; npu-doctor returns %d", ex->code,
                                ND_EXIT_TIMEOUT);
    nd_finding_set_cause(f, "The job ran longer than the wall-clock limit it was given: slower than expected (see the "
                            "findings above: a hang, an input-bound or CPU-bound run), or the limit is too short.");
    nd_finding_add_fix(f, "npu-doctor run --timeout 2h -- <the same command>   # a longer limit, if it was making "
                          "progress");
    if (b)
        f->at_s = b->t;
}

void nd_detect_exit(const struct nd_series *s, const struct nd_detect_context *ctx, const struct nd_exit_info *ex,
                    struct nd_findings *out)
{
    const struct nd_sample *b = nd_series_last(s);
    double at = b ? b->t : 0;
    if (ctx->dataloader_bus_error || (ex->signaled && ex->signal == SIGBUS)) {
        if (!(ex->exited && ex->code == 0))
            nd_exit_shm(s, ctx, ex, out);
        return;
    }
    if (ex->timeout_s > 0) {
        nd_exit_timeout(s, ex, out);
        return;
    }
    if (ex->stopped_by_us)
        return;
    if (ex->exited) {
        /* One verdict per exit: the specific one when there is one. */
        if (ex->code != 0 && ex->last_error && nd_exit_line_is_host_oom(ex->last_error))
            nd_exit_host_memory(s, ctx, ex, out);
        else if (ex->code != 0)
            nd_exit_code(s, ex, out);
        else if (ctx->nchild_exits > 0)
            nd_exit_children(s, ctx, out);
        else if (ex->traceback_error && ex->traceback_error[0])
            nd_exit_masked(s, ex, out);
        return;
    }
    if (!ex->signaled)
        return;
    struct nd_finding *f = NULL;
    switch (ex->signal) {
    case SIGKILL:
        if (nd_oom_rose(s)) {
            f = nd_findings_add(out, "exit.oom-killed", ND_CAT_HOST_OOM, ND_SEV_ERROR,
                                "The kernel OOM killer ended the job (SIGKILL)");
            nd_finding_add_evidence(f, NULL, 0,
                                    "died from SIGKILL (exit status 137); cgroup oom_kill went from %lld to %lld",
                                    (long long)nd_series_first(s)->oom_kill, (long long)b->oom_kill);
            if (ctx->peak_rss && b->cg_mem_max)
                nd_finding_add_evidence(f, NULL, 0, "the job's RSS peaked at %.0f MiB; cgroup %s: %.0f MiB",
                                        (double)ctx->peak_rss / 1048576.0, nd_cgroup_limit_file(ctx),
                                        (double)b->cg_mem_max / 1048576.0);
            else if (ctx->peak_rss)
                nd_finding_add_evidence(f, NULL, 0, "the job's RSS peaked at %.0f MiB",
                                        (double)ctx->peak_rss / 1048576.0);
            nd_finding_set_cause(f, "The job's cgroup ran out of host memory.");
            nd_finding_add_fix(f, "raise the memory limit (docker --memory, Kubernetes limits, Slurm --mem)");
            nd_finding_add_fix(f, "lower num_workers / batch size; look for host memory growing per step");
        } else {
            f = nd_findings_add(out, "exit.killed", ND_CAT_CONFIG, ND_SEV_WARNING,
                                "The job was killed with SIGKILL from outside");
            f->confidence = ND_CONF_LOW;
            nd_finding_add_evidence(f, NULL, 0,
                                    "died from SIGKILL (exit status 137); the cgroup OOM counter did not move");
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
        nd_finding_add_fix(f, "PYTHONFAULTHANDLER=1 npu-doctor run -- <the same command>   "
                              "# Python prints its stack at the crash");
        nd_finding_add_fix(f, "npu-doctor check   # version mismatches between driver, CANN/CUDA and torch");
        break;
    case SIGABRT:
        f = nd_findings_add(out, "exit.abort", ND_CAT_DEVICE_FAULT, ND_SEV_ERROR, "The job aborted (SIGABRT)");
        f->confidence = ND_CONF_LOW;
        nd_finding_add_evidence(f, NULL, 0, "died from SIGABRT (exit status 134)");
        nd_finding_set_cause(f, "A native library hit an assertion or an uncaught C++ exception; the last lines of "
                                "stderr say which.");
        nd_finding_add_fix(f, "npu-doctor explain LOGFILE   # on the job's saved output");
        break;
    case SIGINT:
        /* Ctrl-C: the person at the terminal knows; said as a note, so the end is not "no problems". */
        f = nd_findings_add(out, "exit.interrupted", ND_CAT_CONFIG, ND_SEV_INFO,
                            "The job was interrupted (SIGINT, Ctrl-C) before it finished");
        nd_finding_add_evidence(f, NULL, 0, "exit status %d", 128 + ex->signal);
        break;
    case SIGTERM:
    case SIGHUP:
        /* Asked to stop, by a scheduler or a person: not a fault of the job, but not a success either. */
        f = nd_findings_add(out, "exit.stopped", ND_CAT_CONFIG, ND_SEV_WARNING,
                            "The job was stopped from outside with %s before it finished", nd_signame(ex->signal));
        f->confidence = ND_CONF_MEDIUM;
        nd_finding_add_evidence(f, NULL, 0, "exit status %d", 128 + ex->signal);
        nd_finding_set_cause(f, "Ctrl-C, a scheduler's time limit or preemption (Slurm sends SIGTERM), or kill.");
        nd_finding_add_fix(f, "sacct -j $SLURM_JOB_ID -o State,Elapsed,Timelimit   # under Slurm: was the time up?");
        break;
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
