/* Log-shape analysis: names the likely cause of a job that stalled or
 * crawled from the shape of its log when no rule knows any of its lines.
 * Four readings of a log's tail, each driven by the [shape.*] vocabulary:
 *   - a stack dump (py-spy, faulthandler, gdb, a Ctrl-C traceback): the
 *     innermost frames say who waits, and for what;
 *   - the last lines: a log that stops right after a blocking step
 *     (communicator init, a lock, a build) stopped in it, or on progress
 *     lines of ranks an epoch apart (uneven data per rank);
 *   - throughput: a rate that collapses, data time close to step time;
 *   - a tool dump (npu-smi, nvidia-smi, topology) with a fault in it, or an
 *     idle device beside a running job.
 * Findings are warnings of low confidence: a hint, never above a rule. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/redact.h"
#include "core/strbuf.h"
#include "kb/kb_internal.h"
#include "kb/kb_logical.h"
#include "kb/kb_shape.h"

#define ND_SHAPE_TAIL (128u << 10) /* bytes of each source kept for the analysis */
#define ND_SHAPE_MAX_LINES 4096
#define ND_SHAPE_MAX_STACKS 64
#define ND_SHAPE_MAX_FRAMES 200
#define ND_SHAPE_DEPTH 12 /* innermost frames that may name the waiter */
#define ND_SHAPE_WAIT_DEPTH 3
#define ND_SHAPE_MAX_KEEP 8 /* findings kept across sources */

struct nd_shape_line {
    char *s;   /* content: prefix and outer whitespace removed, NUL-terminated */
    char *raw; /* the same line with its prefix ([rank3]:, a pid, a timestamp) */
    size_t indent;
    long no; /* line number in the source */
};

enum nd_stack_kind { ND_STK_TRACEBACK, ND_STK_FAULTHANDLER, ND_STK_PYSPY, ND_STK_GDB };

struct nd_shape_frame {
    char *text; /* "func file code", what the vocabulary matches */
    size_t li;  /* its line */
};

struct nd_shape_stack {
    enum nd_stack_kind kind;
    bool main;        /* the main / current thread, or a traceback */
    long header;      /* index of the header line, -1 none */
    bool ended;       /* a traceback ended in an exception line */
    bool interrupted; /* ... and that exception is KeyboardInterrupt */
    bool want_code;   /* the next line is the code of the last frame */
    int more_code;    /* IPython: numbered lines after the arrow still join it */
    struct nd_shape_frame *f;
    size_t n;
};

struct nd_shape_ctx {
    const struct nd_kb_shape_set *set;
    const char *name;
    struct nd_shape_line *l;
    size_t n;
    struct nd_shape_stack st[ND_SHAPE_MAX_STACKS];
    size_t nst;
};

/* ---- helpers ---- */

static bool nd_shape_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static void nd_shape_evidence(struct nd_finding *f, const char *name, const struct nd_shape_line *l)
{
    for (size_t i = 0; i < f->nevidence; i++)
        if (f->evidence[i].line == l->no)
            return;
    char *red = nd_redact_cut(l->s, strlen(l->s), ND_KB_EVIDENCE_MAX);
    nd_finding_add_evidence(f, name, l->no, "%s", red);
    free(red);
}

/* A finding in the words of entry e, with the code's own sentence after its
 * cause. */
static struct nd_finding *nd_shape_finding(struct nd_findings *out, const struct nd_shape_entry *e, const char *idkind,
                                           const char *detail)
{
    char *id = nd_xasprintf("shape.%s.%s", idkind, e->name);
    struct nd_finding *f = nd_findings_add(out, id, e->category, ND_SEV_WARNING, "%s", e->title);
    free(id);
    f->confidence = ND_CONF_LOW;
    if (e->cause && detail)
        nd_finding_set_cause(f, "%s %s", e->cause, detail);
    else if (e->cause || detail)
        nd_finding_set_cause(f, "%s", e->cause ? e->cause : detail);
    for (size_t i = 0; i < e->nfix; i++)
        nd_finding_add_fix(f, "%s", e->fix[i]);
    f->count = 1;
    return f;
}

static void nd_shape_first(struct nd_finding *f)
{
    if (f->nevidence && !f->first_file && f->evidence[0].file) {
        f->first_file = nd_xstrdup(f->evidence[0].file);
        f->first_line = f->evidence[0].line;
    }
}

/* ---- lines ---- */

static void nd_shape_lines(struct nd_shape_ctx *c, char *text, size_t len, long first_line)
{
    size_t cap = 0;
    long no = first_line;
    for (char *p = text, *end = text + len; p < end && c->n < ND_SHAPE_MAX_LINES; no++) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        *le = '\0';
        /* What a terminal shows of a line rewritten with \r: its last part. */
        char *cr = le;
        while (cr > p && cr[-1] != '\r')
            cr--;
        char *s = cr;
        if (s == le && s > p) { /* a line ending in \r: the part before it */
            *--le = '\0';
            while (s > p && s[-1] != '\r')
                s--;
        }
        char *raw = s;
        s += nd_kb_line_prefix(s, (size_t)(le - s));
        size_t indent = 0;
        while (*s == ' ' || *s == '\t') {
            s++;
            indent++;
        }
        char *t = s + strlen(s);
        while (t > s && isspace((unsigned char)t[-1]))
            *--t = '\0';
        for (char *q = s; *q; q++)
            if ((unsigned char)*q < 0x20)
                *q = ' ';
        if (c->n == cap) {
            cap = cap ? cap * 2 : 256;
            c->l = nd_xrealloc(c->l, cap * sizeof *c->l);
        }
        c->l[c->n++] = (struct nd_shape_line){.s = s, .raw = raw, .indent = indent, .no = no};
        p = le + 1;
        if (nl == NULL)
            break;
        p = nl + 1;
    }
}

/* ---- stacks ---- */

static struct nd_shape_stack *nd_shape_stack_new(struct nd_shape_ctx *c, enum nd_stack_kind kind, bool main, long header)
{
    if (c->nst == ND_SHAPE_MAX_STACKS)
        return NULL;
    struct nd_shape_stack *st = &c->st[c->nst++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->main = main;
    st->header = header;
    return st;
}

static void nd_shape_frame_add(struct nd_shape_stack *st, size_t li, const char *func, size_t fn, const char *file,
                               size_t fl)
{
    if (st->n == ND_SHAPE_MAX_FRAMES) {
        if (st->kind != ND_STK_TRACEBACK)
            return; /* innermost first: the outermost frames may go */
        free(st->f[0].text);
        memmove(st->f, st->f + 1, (st->n - 1) * sizeof *st->f);
        st->n--;
    }
    st->f = nd_xrealloc(st->f, (st->n + 1) * sizeof *st->f);
    st->f[st->n].text = nd_xasprintf("%.*s %.*s", (int)fn, func, (int)fl, file);
    st->f[st->n].li = li;
    st->n++;
}

/* `File "x.py", line 3, in f` (traceback) or `File "x.py", line 3 in f`
 * (faulthandler). */
static bool nd_shape_pyframe(const char *s, const char **file, size_t *fl, const char **func, bool *comma)
{
    if (!nd_shape_prefix(s, "File \""))
        return false;
    const char *q = strchr(s + 6, '"');
    if (!q)
        return false;
    *file = s + 6;
    *fl = (size_t)(q - (s + 6));
    const char *p = q + 1;
    if (!nd_shape_prefix(p, ", line "))
        return false;
    p += 7;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    *comma = *p == ',';
    if (*comma)
        p++;
    if (!nd_shape_prefix(p, " in "))
        return false;
    *func = p + 4;
    return true;
}

/* IPython and Jupyter print a traceback's frames in their own layout:
 *   IPython 8: `File ~/x.py:118, in func(args)`, `File /x.py:8` (module
 *              level), `Cell In[3], line 5`, `Input In [3], in <cell line: 5>()`
 *   IPython 7: `~/x.py in func(args)`, `<ipython-input-3-ab> in <module>`
 * Their code follows as numbered lines, the current one behind an arrow
 * (`--> 118 code`, `----> 5 code`). fn gets the length of func, 0 when the
 * frame names none. */
static bool nd_shape_ipyframe(const char *s, size_t indent, const char **file, size_t *fl, const char **func, size_t *fn)
{
    *func = "";
    *fn = 0;
    if (nd_shape_prefix(s, "Cell In[") || nd_shape_prefix(s, "Input In [")) {
        const char *q = strchr(s, ']');
        if (!q || !nd_shape_prefix(q + 1, ", line ") || !isdigit((unsigned char)q[8])) {
            if (!q || !nd_shape_prefix(q + 1, ", in "))
                return false;
        }
        *file = s;
        *fl = (size_t)(q + 1 - s);
        const char *in = strstr(q, ", in ");
        if (in) {
            *func = in + 5;
            *fn = strlen(in + 5);
        }
        return true;
    }
    if (nd_shape_prefix(s, "File ") && s[5] != '"' && s[5] != ' ') {
        /* The path ends at the first ":<line>" followed by ", in " or the end. */
        for (const char *p = s + 5; (p = strchr(p, ':')) != NULL; p++) {
            const char *d = p + 1;
            if (!isdigit((unsigned char)*d))
                continue;
            while (isdigit((unsigned char)*d))
                d++;
            if (*d && !nd_shape_prefix(d, ", in "))
                continue;
            *file = s + 5;
            *fl = (size_t)(p - (s + 5));
            if (*d) {
                *func = d + 5;
                *fn = strlen(d + 5);
            }
            return true;
        }
        return false;
    }
    /* IPython 7 starts a frame at the margin: a path without spaces, then
     * " in " and the function. */
    if (indent > 0)
        return false;
    const char *in = strstr(s, " in ");
    if (!in || in == s || memchr(s, ' ', (size_t)(in - s)))
        return false;
    /* ... and the function as IPython prints it: `name(args)` or `<module>`. */
    const char *w = in + 4;
    while (isalnum((unsigned char)*w) || *w == '_' || *w == '.')
        w++;
    if (in[4] != '<' && (w == in + 4 || *w != '('))
        return false;
    size_t n = (size_t)(in - s);
    bool py = n > 3 && strncmp(in - 3, ".py", 3) == 0 &&
              (s[0] == '/' || s[0] == '~' || s[0] == '.' || isalpha((unsigned char)s[0]));
    bool cell = nd_shape_prefix(s, "<ipython-input-") && in[-1] == '>';
    if (!py && !cell)
        return false;
    *file = s;
    *fl = n;
    *func = in + 4;
    *fn = strlen(in + 4);
    return true;
}

/* IPython's numbered code lines: the arrow marks the line being run
 * (`--> 118 code`, code returned in *code), the others are context
 * (`    115 code`, `(...)`). */
static bool nd_shape_ipycode(const char *s, bool *arrow, const char **code)
{
    const char *p = s;
    *arrow = false;
    if (nd_shape_prefix(p, "(...)")) {
        *code = p + 5;
        return true;
    }
    if (*p == '-') {
        while (*p == '-')
            p++;
        if (*p != '>')
            return false;
        p++;
        *arrow = true;
        while (*p == ' ')
            p++;
    }
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p && *p != ' ')
        return false;
    while (*p == ' ')
        p++;
    *code = p;
    return true;
}

/* The line that ends a traceback: `SomeError: message`, `KeyboardInterrupt`. */
static bool nd_shape_exception_line(const char *s, bool *interrupt)
{
    const char *p = s;
    if (nd_shape_prefix(p, "^C"))
        p += 2;
    const char *w = p;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
        p++;
    if (p == w || (*p && *p != ':'))
        return false;
    size_t n = (size_t)(p - w);
    static const char *const ends[] = {"Error", "Exception", "Interrupt", "Exit", "Warning", "Failure"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t k = strlen(ends[i]);
        if (n >= k && strncmp(p - k, ends[i], k) == 0) {
            *interrupt = n >= 17 && strncmp(p - 17, "KeyboardInterrupt", 17) == 0;
            return true;
        }
    }
    return false;
}

/* "path/x.py:50: SomeError" (pytest --tb=short/line): fl gets the path's
 * length. */
static bool nd_shape_pytest_frame(const char *s, size_t *fl, bool *interrupt)
{
    const char *py = strstr(s, ".py:");
    const char *sp = strchr(s, ' ');
    if (!py || (sp && sp < py))
        return false;
    const char *p = py + 4;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (p[0] != ':' || p[1] != ' ')
        return false;
    *fl = (size_t)(py + 3 - s);
    *interrupt = false;
    return nd_shape_exception_line(p + 2, interrupt);
}

static void nd_shape_stacks(struct nd_shape_ctx *c)
{
    struct nd_shape_stack *cur = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const char *s = c->l[i].s;
        const char *file = NULL, *func = NULL;
        size_t fl = 0;
        bool comma = false, intr = false;
        if (!*s) {
            if (cur && cur->kind != ND_STK_TRACEBACK)
                cur = NULL;
            continue;
        }
        if (strstr(s, "Traceback (most recent call last)")) {
            cur = nd_shape_stack_new(c, ND_STK_TRACEBACK, true, (long)i);
            /* IPython names the exception in its header
             * ("KeyboardInterrupt     Traceback (most recent call last)"). */
            if (cur && nd_shape_prefix(s, "KeyboardInterrupt "))
                cur->interrupted = true;
            continue;
        }
        if (strstr(s, "(most recent call first):") &&
            (nd_shape_prefix(s, "Thread 0x") || nd_shape_prefix(s, "Current thread") || nd_shape_prefix(s, "Stack"))) {
            cur = nd_shape_stack_new(c, ND_STK_FAULTHANDLER, !nd_shape_prefix(s, "Thread"), (long)i);
            continue;
        }
        if (nd_shape_prefix(s, "Thread ") && strstr(s, "): \"") && c->l[i].indent == 0) {
            cur = nd_shape_stack_new(c, ND_STK_PYSPY, strstr(s, "\"MainThread\"") != NULL, (long)i);
            continue;
        }
        if (nd_shape_prefix(s, "Thread ") && strstr(s, "(LWP ")) {
            cur = nd_shape_stack_new(c, ND_STK_GDB, nd_shape_prefix(s, "Thread 1 "), (long)i);
            continue;
        }
        if (nd_shape_pyframe(s, &file, &fl, &func, &comma)) {
            if (!cur || (comma ? cur->kind != ND_STK_TRACEBACK : cur->kind != ND_STK_FAULTHANDLER) || cur->ended)
                cur = nd_shape_stack_new(c, comma ? ND_STK_TRACEBACK : ND_STK_FAULTHANDLER, true, -1);
            if (cur) {
                nd_shape_frame_add(cur, i, func, strlen(func), file, fl);
                cur->want_code = comma;
            }
            continue;
        }
        size_t fn = 0;
        if (nd_shape_ipyframe(s, c->l[i].indent, &file, &fl, &func, &fn)) {
            if (!cur || cur->kind != ND_STK_TRACEBACK || cur->ended)
                cur = nd_shape_stack_new(c, ND_STK_TRACEBACK, true, -1);
            if (cur) {
                nd_shape_frame_add(cur, i, func, fn, file, fl);
                cur->want_code = false;
                cur->more_code = 0;
            }
            continue;
        }
        bool arrow = false;
        const char *code = NULL;
        if (cur && cur->kind == ND_STK_TRACEBACK && !cur->ended && cur->n && nd_shape_ipycode(s, &arrow, &code)) {
            /* The arrow's line is the frame's code; a few numbered lines
             * after it finish a call written over several lines. */
            struct nd_shape_frame *fr = &cur->f[cur->n - 1];
            if (arrow || (cur->more_code > 0 && *code && !nd_shape_prefix(s, "(...)"))) {
                char *t = nd_xasprintf("%s %s", fr->text, code);
                free(fr->text);
                fr->text = t;
                cur->more_code = arrow ? 3 : cur->more_code - 1;
            } else
                cur->more_code = 0;
            continue;
        }
        if (nd_shape_pytest_frame(s, &fl, &intr)) {
            /* pytest's short report: "path.py:50: KeyboardInterrupt", the
             * innermost place, one frame of its own. */
            cur = nd_shape_stack_new(c, ND_STK_TRACEBACK, true, -1);
            if (cur) {
                nd_shape_frame_add(cur, i, "", 0, s, fl);
                cur->ended = true;
                cur->interrupted = intr;
            }
            cur = NULL;
            continue;
        }
        if (s[0] == '#' && isdigit((unsigned char)s[1])) {
            const char *p = s + 1;
            while (isdigit((unsigned char)*p))
                p++;
            while (*p == ' ')
                p++;
            if (nd_shape_prefix(p, "0x")) {
                const char *in = strstr(p, " in ");
                p = in ? in + 4 : p;
            }
            if (!cur || cur->kind != ND_STK_GDB)
                cur = nd_shape_stack_new(c, ND_STK_GDB, true, -1);
            if (cur)
                nd_shape_frame_add(cur, i, p, strlen(p), "", 0);
            continue;
        }
        if (nd_shape_prefix(s, "frame #")) {
            const char *p = strchr(s, ':');
            p = p ? p + 1 : s;
            if (!cur || cur->kind != ND_STK_GDB)
                cur = nd_shape_stack_new(c, ND_STK_GDB, true, -1);
            if (cur)
                nd_shape_frame_add(cur, i, p, strlen(p), "", 0);
            continue;
        }
        if (cur && cur->kind == ND_STK_PYSPY && c->l[i].indent > 0) {
            /* py-spy: "    func (file.py:12)"; deeper lines are --locals. */
            size_t n = strlen(s);
            const char *open = strrchr(s, '(');
            if (n > 2 && s[n - 1] == ')' && open && open > s && open[-1] == ' ')
                nd_shape_frame_add(cur, i, s, (size_t)(open - 1 - s), open + 1, (size_t)(s + n - 1 - (open + 1)));
            continue;
        }
        if (cur && cur->kind == ND_STK_TRACEBACK && !cur->ended) {
            if (nd_shape_exception_line(s, &intr)) {
                cur->ended = true;
                cur->interrupted = intr;
                cur->want_code = false;
                continue;
            }
            if (cur->want_code && cur->n) {
                struct nd_shape_frame *fr = &cur->f[cur->n - 1];
                char *t = nd_xasprintf("%s %s", fr->text, s);
                free(fr->text);
                fr->text = t;
                cur->want_code = false;
                continue;
            }
        }
        if (cur && cur->kind != ND_STK_TRACEBACK && c->l[i].indent > 0)
            continue;
        cur = cur && cur->kind == ND_STK_TRACEBACK && !cur->ended ? cur : NULL;
        if (cur) /* text inside a traceback that is no frame (chained output) */
            cur->want_code = false;
    }
}

static const struct nd_shape_frame *nd_shape_inner(const struct nd_shape_stack *st, size_t k)
{
    if (k >= st->n)
        return NULL;
    return st->kind == ND_STK_TRACEBACK ? &st->f[st->n - 1 - k] : &st->f[k];
}

/* The class that names the waiter: the strongest one matched in the
 * innermost frames, the innermost match among equals (file order breaks
 * ties on one frame). */
static const struct nd_shape_entry *nd_shape_classify_to(const struct nd_shape_ctx *c, const struct nd_shape_stack *st,
                                                         size_t depth, const struct nd_shape_frame **at)
{
    const struct nd_shape_entry *best = NULL;
    for (size_t k = 0; k < depth; k++) {
        const struct nd_shape_frame *fr = nd_shape_inner(st, k);
        if (!fr)
            break;
        for (size_t i = 0; i < c->set->n; i++) {
            const struct nd_shape_entry *e = &c->set->v[i];
            if (e->kind != ND_SHAPE_FRAMES || (best && e->priority <= best->priority))
                continue;
            if (nd_shape_res_match(&e->pat, fr->text)) {
                best = e;
                *at = fr;
            }
        }
    }
    return best;
}

static const struct nd_shape_entry *nd_shape_classify(const struct nd_shape_ctx *c, const struct nd_shape_stack *st,
                                                      const struct nd_shape_frame **at)
{
    return nd_shape_classify_to(c, st, ND_SHAPE_DEPTH, at);
}

static const struct nd_shape_frame *nd_shape_waits(const struct nd_shape_ctx *c, const struct nd_shape_stack *st)
{
    const struct nd_shape_entry *w = nd_kb_shape_find(c->set, ND_SHAPE_WAIT, NULL);
    for (size_t k = 0; w && k < ND_SHAPE_WAIT_DEPTH; k++) {
        const struct nd_shape_frame *fr = nd_shape_inner(st, k);
        if (fr && nd_shape_res_match(&w->pat, fr->text))
            return fr;
    }
    return NULL;
}

/* A stack that shows a stall: a dump, a Ctrl-C traceback, or a traceback
 * cut off while it waited (in a blocking primitive, or with its innermost
 * frame in a place that waits: a collective, a lock, a build). A traceback
 * that ends in another exception is a failure, not a stall. */
static bool nd_shape_stall_stack(const struct nd_shape_ctx *c, const struct nd_shape_stack *st)
{
    if (st->n == 0)
        return false;
    if (st->kind != ND_STK_TRACEBACK)
        return true;
    if (st->ended || st->interrupted)
        return st->interrupted;
    const struct nd_shape_frame *at = NULL;
    return nd_shape_waits(c, st) != NULL || nd_shape_classify_to(c, st, 1, &at) != NULL;
}

static void nd_shape_stack_finding(struct nd_shape_ctx *c, struct nd_findings *out)
{
    /* Main threads first (the last traceback before the others), then the
     * other threads in order. */
    const struct nd_shape_stack *order[ND_SHAPE_MAX_STACKS];
    size_t n = 0;
    for (size_t i = c->nst; i-- > 0;)
        if (c->st[i].main && nd_shape_stall_stack(c, &c->st[i]))
            order[n++] = &c->st[i];
    for (size_t i = 0; i < c->nst; i++)
        if (!c->st[i].main && nd_shape_stall_stack(c, &c->st[i]))
            order[n++] = &c->st[i];
    if (n == 0)
        return;
    const struct nd_shape_entry *e = NULL;
    const struct nd_shape_frame *at = NULL;
    const struct nd_shape_stack *st = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        e = nd_shape_classify(c, order[i], &at);
        st = order[i];
    }
    const struct nd_shape_frame *wait = NULL;
    const char *kind = "stack";
    if (!e) {
        st = order[0];
        wait = nd_shape_waits(c, st);
        e = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, wait ? "stack-waiting" : "stack-dump");
        if (!e || (!wait && st->kind == ND_STK_TRACEBACK))
            return; /* a Ctrl-C in busy code says nothing about a wait */
        at = wait ? wait : nd_shape_inner(st, 0);
    }
    const struct nd_shape_frame *inner = nd_shape_inner(st, 0);
    char *where = nd_redact_text(at->text);
    char *inn = nd_redact_text(inner->text);
    char *detail = at == inner ? nd_xasprintf("Innermost frame: %.160s.", inn)
                               : nd_xasprintf("Innermost frame: %.160s; the waiter: %.160s.", inn, where);
    struct nd_finding *f = nd_shape_finding(out, e, kind, detail);
    free(detail);
    free(where);
    free(inn);
    if (st->header >= 0)
        nd_shape_evidence(f, c->name, &c->l[st->header]);
    nd_shape_evidence(f, c->name, &c->l[at->li]);
    if (inner != at)
        nd_shape_evidence(f, c->name, &c->l[inner->li]);
    nd_shape_first(f);
}

/* ---- the last lines ---- */

static bool nd_shape_end_line(const struct nd_shape_ctx *c, const char *s)
{
    const struct nd_shape_entry *e = nd_kb_shape_find(c->set, ND_SHAPE_END, NULL);
    return e && nd_shape_res_match(&e->pat, s);
}

static void nd_shape_step_finding(struct nd_shape_ctx *c, struct nd_findings *out)
{
    const struct nd_shape_entry *best = NULL;
    size_t best_li = 0;
    for (size_t i = 0; i < c->set->n; i++) {
        const struct nd_shape_entry *e = &c->set->v[i];
        if (e->kind != ND_SHAPE_STEP)
            continue;
        long seen = 0;
        for (size_t k = c->n; k-- > 0 && seen < e->tail;) {
            const char *s = c->l[k].s;
            if (!*s)
                continue;
            seen++;
            if (nd_shape_end_line(c, s) || nd_shape_res_match(&e->done, s))
                break;
            if (nd_shape_res_match(&e->pat, s)) {
                /* A named step before a generic one; then the later line. */
                if (!best || e->priority > best->priority || (e->priority == best->priority && k > best_li)) {
                    best = e;
                    best_li = k;
                }
                break;
            }
        }
    }
    if (!best)
        return;
    /* Nothing after the step may say that the run went on or ended. */
    for (size_t k = best_li + 1; k < c->n; k++)
        if (nd_shape_end_line(c, c->l[k].s))
            return;
    size_t after = 0, last = best_li;
    for (size_t k = best_li + 1; k < c->n; k++)
        if (c->l[k].s[0]) {
            after++;
            last = k;
        }
    /* A gap in the timestamps after the step line is evidence of a stall. */
    double t0 = 0, t1 = 0;
    char gap[160] = "";
    if (last > best_li && nd_kb_parse_timestamp(c->l[best_li].s, strlen(c->l[best_li].s), &t0) &&
        nd_kb_parse_timestamp(c->l[last].s, strlen(c->l[last].s), &t1) && t1 - t0 >= 60)
        snprintf(gap, sizeof gap, " Its timestamps show %.0f minutes between that line and the last one.",
                 (t1 - t0) / 60);
    char *detail = after ? nd_xasprintf("The log ends %zu line%s after it, with no error and no progress.%s", after,
                                        after == 1 ? "" : "s", gap)
                         : nd_xasprintf("It is the last line of the log: no error, no progress after it.");
    struct nd_finding *f = nd_shape_finding(out, best, "stalled", detail);
    free(detail);
    nd_shape_evidence(f, c->name, &c->l[best_li]);
    if (last != best_li)
        nd_shape_evidence(f, c->name, &c->l[last]);
    nd_shape_first(f);
}

/* ---- ranks out of step ---- */

/* The number after a word (case-insensitive) in s: "Rank:2", "[rank3]",
 * "Epoch:[48]", "epoch 5". Only a word start counts (not "local_rank" for
 * "rank": it is the same number there, and "world_rank" is too). */
static bool nd_shape_number_after(const char *s, const char *word, long *v)
{
    size_t wn = strlen(word);
    for (const char *p = s; *p; p++) {
        if (strncasecmp(p, word, wn) != 0 || (p > s && isalpha((unsigned char)p[-1])))
            continue;
        const char *q = p + wn;
        int seps = 0;
        while (*q && strchr(":= [(#", *q) && seps < 3) {
            q++;
            seps++;
        }
        if (!isdigit((unsigned char)*q))
            continue;
        char *end = NULL;
        *v = strtol(q, &end, 10);
        return !isdigit((unsigned char)*end);
    }
    return false;
}

#define ND_SHAPE_RANKS_TAIL 32 /* non-blank lines from the end that are read */
#define ND_SHAPE_RANKS_MAX 64

/* A log that ends on progress lines of several ranks that are in different
 * epochs: ranks that work in lockstep (collectives each step) cannot drift
 * an epoch apart unless their epochs have different lengths, and the ones
 * that run out of data first wait in a collective the others never join. */
static void nd_shape_ranks_finding(struct nd_shape_ctx *c, struct nd_findings *out)
{
    const struct nd_shape_entry *e = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "ranks-out-of-step");
    if (!e)
        return;
    long rank[ND_SHAPE_RANKS_MAX], epoch[ND_SHAPE_RANKS_MAX];
    size_t li[ND_SHAPE_RANKS_MAX], nr = 0, last = 0;
    long seen = 0;
    for (size_t k = c->n; k-- > 0 && seen < ND_SHAPE_RANKS_TAIL;) {
        const char *s = c->l[k].s;
        if (!*s)
            continue;
        seen++;
        if (nd_shape_end_line(c, s))
            return; /* the run reported its end after these lines */
        /* The rank may be in the prefix the content lost ([rank3]:). */
        long r = 0, ep = 0;
        if (!nd_shape_number_after(c->l[k].raw, "rank", &r) || !nd_shape_number_after(s, "epoch", &ep))
            continue;
        if (!nr)
            last = k;
        size_t i = 0;
        while (i < nr && rank[i] != r)
            i++;
        if (i < nr || nr == ND_SHAPE_RANKS_MAX)
            continue; /* read from the end: the first line of a rank is its latest */
        rank[nr] = r;
        epoch[nr] = ep;
        li[nr++] = k;
    }
    if (nr < 2)
        return;
    size_t lo = 0, hi = 0;
    for (size_t i = 1; i < nr; i++) {
        if (epoch[i] < epoch[lo])
            lo = i;
        if (epoch[i] > epoch[hi])
            hi = i;
    }
    if (epoch[lo] == epoch[hi])
        return;
    size_t behind = 0;
    for (size_t i = 0; i < nr; i++)
        behind += epoch[i] < epoch[hi];
    char *detail = nd_xasprintf("Its last progress lines show %zu of %zu ranks in epoch %ld or earlier while rank %ld "
                                "is already in epoch %ld, and nothing follows them.",
                                behind, nr, epoch[lo], rank[hi], epoch[hi]);
    struct nd_finding *f = nd_shape_finding(out, e, "ranks", detail);
    free(detail);
    size_t a = li[lo] < li[hi] ? li[lo] : li[hi], b = li[lo] < li[hi] ? li[hi] : li[lo];
    nd_shape_evidence(f, c->name, &c->l[a]);
    nd_shape_evidence(f, c->name, &c->l[b]);
    if (last != b && last != a)
        nd_shape_evidence(f, c->name, &c->l[last]);
    nd_shape_first(f);
}

/* ---- tool dumps ---- */

static bool nd_shape_any(const struct nd_shape_ctx *c, const struct nd_shape_res *res, size_t *at)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->l[i].s[0] && nd_shape_res_match(res, c->l[i].s)) {
            if (at)
                *at = i;
            return true;
        }
    return false;
}

static void nd_shape_dump_findings(struct nd_shape_ctx *c, struct nd_findings *out)
{
    for (size_t i = 0; i < c->set->n; i++) {
        const struct nd_shape_entry *e = &c->set->v[i];
        size_t hdr = 0, fault = 0;
        if (e->kind != ND_SHAPE_DUMP || !nd_shape_any(c, &e->pat, &hdr) || !nd_shape_any(c, &e->done, &fault))
            continue;
        if (e->ctx.n && !nd_shape_any(c, &e->ctx, NULL)) {
            /* Without its context the fault counts only in a dump pasted alone. */
            bool alone = e->alone.n > 0;
            for (size_t k = 0; k < c->n && alone; k++) {
                const char *s = c->l[k].s;
                alone = !*s || nd_shape_res_match(&e->pat, s) || nd_shape_res_match(&e->done, s) ||
                        nd_shape_res_match(&e->alone, s);
            }
            if (!alone)
                continue;
        }
        struct nd_finding *f = nd_shape_finding(out, e, "dump", NULL);
        nd_shape_evidence(f, c->name, &c->l[fault]);
        if (hdr != fault)
            nd_shape_evidence(f, c->name, &c->l[hdr]);
        nd_shape_first(f);
    }
}

/* The progress numbers of one unit ([shape.rate.*] entries that count the
 * same thing share a series: tqdm's it/s turns into s/it when it slows). */
struct nd_shape_series {
    const char *unit;
    double *v;
    size_t *li;
    size_t n;
};

#define ND_SHAPE_MAX_SERIES 16

static int nd_shape_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double nd_shape_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, nd_shape_dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void nd_shape_series_add(struct nd_shape_series *ser, size_t *nser, const char *unit, double v, size_t li)
{
    size_t k = 0;
    while (k < *nser && strcmp(ser[k].unit, unit) != 0)
        k++;
    if (k == *nser) {
        if (*nser == ND_SHAPE_MAX_SERIES)
            return;
        ser[(*nser)++] = (struct nd_shape_series){.unit = unit};
    }
    struct nd_shape_series *x = &ser[k];
    x->v = nd_xrealloc(x->v, (x->n + 1) * sizeof *x->v);
    x->li = nd_xrealloc(x->li, (x->n + 1) * sizeof *x->li);
    x->v[x->n] = v;
    x->li[x->n++] = li;
}

/* The rate of the progress lines ([shape.rate.*]) against its own earlier
 * value: a steady early rate that the last lines fall far below. */
static void nd_shape_collapse_finding(struct nd_shape_ctx *c, struct nd_findings *out)
{
    struct nd_shape_series ser[ND_SHAPE_MAX_SERIES];
    size_t nser = 0;
    for (size_t i = 0; i < c->n; i++) {
        const char *s = c->l[i].s;
        if (!*s)
            continue;
        for (size_t k = 0; k < c->set->n; k++) {
            const struct nd_shape_entry *e = &c->set->v[k];
            double v = 0;
            if (e->kind == ND_SHAPE_RATE && e->unit && nd_shape_rate_of(e, s, &v)) {
                nd_shape_series_add(ser, &nser, e->unit, v, i);
                break; /* one rate a line: the first entry that reads it */
            }
        }
    }
    size_t best = 0;
    for (size_t k = 1; k < nser; k++)
        if (ser[k].n > ser[best].n)
            best = k;
    const struct nd_shape_entry *e = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "rate-collapse");
    if (e && nser && ser[best].n >= 8) {
        /* Skip the warm-up, compare the steady early rate with the last ones. */
        const struct nd_shape_series *x = &ser[best];
        size_t n = x->n, skip = n / 8 + 1, last = 3;
        size_t early_n = (n - skip - last) / 2 ? (n - skip - last) / 2 : 1;
        double *tmp = nd_xmalloc(n * sizeof *tmp);
        memcpy(tmp, x->v + skip, early_n * sizeof *tmp);
        double early = nd_shape_median(tmp, early_n);
        memcpy(tmp, x->v + n - last, last * sizeof *tmp);
        double late = nd_shape_median(tmp, last);
        free(tmp);
        double limit = e->has_min ? e->min : 0.2;
        if (early > 0 && late < early * limit) {
            char *detail = nd_xasprintf("The rate fell from about %.3g to %.3g %s (%.0f%% of it).", early, late,
                                        x->unit, 100 * late / early);
            struct nd_finding *f = nd_shape_finding(out, e, "rate", detail);
            free(detail);
            nd_shape_evidence(f, c->name, &c->l[x->li[skip]]);
            nd_shape_evidence(f, c->name, &c->l[x->li[n - 1]]);
            nd_shape_first(f);
        }
    }
    for (size_t k = 0; k < nser; k++) {
        free(ser[k].v);
        free(ser[k].li);
    }
}

/* Two numbers of one line whose ratio names a cause ([shape.ratio.*], data
 * time over step time): the median over the lines that show both. The first
 * entry that holds gives the finding. */
static void nd_shape_ratio_finding(struct nd_shape_ctx *c, struct nd_findings *out)
{
    double *ratio = nd_xmalloc((c->n ? c->n : 1) * sizeof *ratio);
    for (size_t k = 0; k < c->set->n; k++) {
        const struct nd_shape_entry *e = &c->set->v[k];
        if (e->kind != ND_SHAPE_RATIO)
            continue;
        size_t n = 0, li = 0;
        for (size_t i = 0; i < c->n; i++)
            if (c->l[i].s[0] && nd_shape_ratio_of(e, c->l[i].s, &ratio[n])) {
                n++;
                li = i;
            }
        if (n < (size_t)e->count)
            continue;
        double m = nd_shape_median(ratio, n);
        if (m < e->min || m > e->max)
            continue;
        char *detail = nd_xasprintf("In this log it is %.0f%% (the median of %zu lines that show both numbers).",
                                    100 * m, n);
        struct nd_finding *f = nd_shape_finding(out, e, "rate", detail);
        free(detail);
        nd_shape_evidence(f, c->name, &c->l[li]);
        nd_shape_first(f);
        break;
    }
    free(ratio);
}

static void nd_shape_rate_findings(struct nd_shape_ctx *c, struct nd_findings *out)
{
    nd_shape_collapse_finding(c, out);
    nd_shape_ratio_finding(c, out);
}

/* What the pasted tool tables say about the devices and the host. */
struct nd_shape_devstats {
    bool no_rows; /* an smi table with its headers and no device row */
    size_t smi_li;
    size_t ndev, nbusy, nproc, nmem, ntiny, njob, dev_li, job_li;
    size_t nhost, nworkers, host_li;
    double host_cpu; /* the busiest Python process's %CPU */
    /* Samples per device, for utilisation that comes and goes. */
    int key[16];
    size_t nsample[16], nlow[16], nhigh[16], first_li[16], high_li[16];
    size_t nkeys;
};

/* A device's memory counts as unused below this share of it: a context and
 * a driver's own buffers, no model. */
#define ND_SHAPE_MEM_TINY 0.03
/* Utilisation at or below this is idle for the intermittent reading. */
#define ND_SHAPE_UTIL_LOW 10

static void nd_shape_devstats_sample(struct nd_shape_devstats *d, const struct nd_shape_row *r, size_t li, int high)
{
    size_t k = 0;
    while (k < d->nkeys && d->key[k] != r->key)
        k++;
    if (k == d->nkeys) {
        if (d->nkeys == 16)
            return;
        d->key[d->nkeys] = r->key;
        d->nsample[k] = d->nlow[k] = d->nhigh[k] = 0;
        d->first_li[k] = li;
        d->high_li[k] = li;
        d->nkeys++;
    }
    d->nsample[k]++;
    d->nlow[k] += r->util <= ND_SHAPE_UTIL_LOW;
    if (r->util >= high) {
        d->nhigh[k]++;
        d->high_li[k] = li;
    }
}

static void nd_shape_devstats_read(struct nd_shape_ctx *c, struct nd_shape_devstats *d, int high, double worker_cpu)
{
    struct nd_shape_table t;
    nd_shape_table_init(&t);
    for (size_t i = 0; i < c->n; i++) {
        const char *s = c->l[i].s;
        if (!*s)
            continue;
        struct nd_shape_row r;
        int headers = t.smi_headers;
        enum nd_shape_row_kind kind = nd_shape_table_line(&t, s, &r);
        if (t.smi_headers > headers)
            d->smi_li = i;
        switch (kind) {
        case ND_ROW_DEVICE:
            if (r.util < 0)
                break;
            if (d->ndev++ == 0)
                d->dev_li = i;
            d->nbusy += r.util > 0;
            if (r.mem_ratio >= 0) {
                d->nmem++;
                d->ntiny += r.mem_ratio < ND_SHAPE_MEM_TINY;
            }
            nd_shape_devstats_sample(d, &r, i, high);
            break;
        case ND_ROW_PROC: d->nproc++; break;
        case ND_ROW_HOST:
            if (!r.python)
                break;
            if (d->nhost++ == 0 || r.cpu > d->host_cpu) {
                d->host_cpu = r.cpu;
                d->host_li = i;
            }
            d->nworkers += r.cpu >= worker_cpu;
            break;
        case ND_ROW_TABLE: break;
        case ND_ROW_NONE:
            /* Job output beside the dump: progress or loss lines. */
            if (strstr(s, "it/s") || strstr(s, "s/it") || strstr(s, "loss") || strstr(s, "Loss") ||
                strstr(s, "samples/s")) {
                if (d->njob++ == 0)
                    d->job_li = i;
            }
            break;
        }
    }
    d->no_rows = t.smi_headers > 0 && t.bus_headers > 0 && d->ndev == 0;
}

/* An nvidia-smi or npu-smi table with its title and column headers and no
 * device row under them: the tool runs and sees no device. */
static bool nd_shape_none_finding(struct nd_shape_ctx *c, const struct nd_shape_devstats *d, struct nd_findings *out)
{
    const struct nd_shape_entry *e = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "device-none");
    if (!d->no_rows || !e)
        return false;
    struct nd_finding *f = nd_shape_finding(out, e, "device", "The table has its headers and no device row.");
    nd_shape_evidence(f, c->name, &c->l[d->smi_li]);
    nd_shape_first(f);
    return true;
}

/* The devices idle while the job prints progress: held but idle (waiting,
 * input-bound) or unused (no process, or no memory in use: the job computes
 * elsewhere). */
static bool nd_shape_idle_finding(struct nd_shape_ctx *c, const struct nd_shape_devstats *d, struct nd_findings *out)
{
    if (d->ndev == 0 || d->nbusy > 0 || d->njob == 0)
        return false;
    bool empty = d->nmem > 0 && d->ntiny == d->nmem;
    const struct nd_shape_entry *e = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL,
                                                      d->nproc == 0 || empty ? "device-unused" : "device-idle");
    if (!e)
        return false;
    char *detail = nd_xasprintf("%zu device%s at 0%% utilisation%s, %zu process%s on them, while the job prints "
                                "progress.",
                                d->ndev, d->ndev == 1 ? "" : "s", empty ? " with almost no memory in use" : "",
                                d->nproc, d->nproc == 1 ? "" : "es");
    struct nd_finding *f = nd_shape_finding(out, e, "device", detail);
    free(detail);
    nd_shape_evidence(f, c->name, &c->l[d->dev_li]);
    nd_shape_evidence(f, c->name, &c->l[d->job_li]);
    nd_shape_first(f);
    return true;
}

/* One device sampled several times, idle in a good share of the samples and
 * busy in others: a device that waits for each batch. */
static bool nd_shape_intermittent_finding(struct nd_shape_ctx *c, const struct nd_shape_devstats *d,
                                          struct nd_findings *out)
{
    const struct nd_shape_entry *e = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "device-intermittent");
    if (!e)
        return false;
    for (size_t k = 0; k < d->nkeys; k++) {
        if (d->nsample[k] < 3 || d->nhigh[k] == 0 || d->nlow[k] * 3 < d->nsample[k])
            continue;
        char *detail = nd_xasprintf("Device %d is idle in %zu of %zu samples and busy in %zu.", d->key[k], d->nlow[k],
                                    d->nsample[k], d->nhigh[k]);
        struct nd_finding *f = nd_shape_finding(out, e, "device", detail);
        free(detail);
        nd_shape_evidence(f, c->name, &c->l[d->first_li[k]]);
        nd_shape_evidence(f, c->name, &c->l[d->high_li[k]]);
        nd_shape_first(f);
        return true;
    }
    return false;
}

/* top / ps: the job's Python process on many cores (it computes on the CPU),
 * or several Python processes each on a core (loader workers), beside
 * devices that are idle or not shown. */
static void nd_shape_host_finding(struct nd_shape_ctx *c, const struct nd_shape_devstats *d, struct nd_findings *out)
{
    if (d->nhost == 0 || d->nbusy > 0)
        return;
    const struct nd_shape_entry *cpu = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "host-cpu-compute");
    const struct nd_shape_entry *wk = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "host-workers-busy");
    const struct nd_shape_entry *e = NULL;
    char *detail = NULL;
    if (wk && wk->has_min && (double)d->nworkers >= wk->min) {
        e = wk;
        detail = nd_xasprintf("%zu Python processes each keep a core busy; the busiest uses %.0f%% CPU.", d->nworkers,
                              d->host_cpu);
    } else if (cpu && cpu->has_min && d->host_cpu >= cpu->min) {
        e = cpu;
        detail = nd_xasprintf("The job's Python process uses %.0f%% CPU (about %.0f cores).", d->host_cpu,
                              d->host_cpu / 100);
    }
    if (!e)
        return;
    struct nd_finding *f = nd_shape_finding(out, e, "host", detail);
    free(detail);
    nd_shape_evidence(f, c->name, &c->l[d->host_li]);
    nd_shape_first(f);
}

static void nd_shape_util_findings(struct nd_shape_ctx *c, struct nd_findings *out)
{
    const struct nd_shape_entry *in = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "device-intermittent");
    const struct nd_shape_entry *wk = nd_kb_shape_find(c->set, ND_SHAPE_SIGNAL, "host-workers-busy");
    struct nd_shape_devstats d;
    memset(&d, 0, sizeof d);
    /* Busy from the intermittent signal's min (percent); a loader worker
     * keeps most of one core. */
    nd_shape_devstats_read(c, &d, in && in->has_min ? (int)in->min : 50, wk ? 80 : 1e9);
    if (!nd_shape_none_finding(c, &d, out) && !nd_shape_idle_finding(c, &d, out))
        nd_shape_intermittent_finding(c, &d, out);
    nd_shape_host_finding(c, &d, out);
}

void nd_kb_shape_analyze(const struct nd_kb_shape_set *set, const char *name, const char *text, size_t len,
                         long first_line, struct nd_findings *out)
{
    if (!set || !set->n || !text || !len)
        return;
    struct nd_shape_ctx c = {.set = set, .name = name ? name : "<input>"};
    char *copy = nd_xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (copy[i] == '\0')
            copy[i] = ' ';
    nd_shape_lines(&c, copy, len, first_line);
    nd_shape_stacks(&c);
    nd_shape_dump_findings(&c, out);
    nd_shape_stack_finding(&c, out);
    nd_shape_step_finding(&c, out);
    nd_shape_ranks_finding(&c, out);
    nd_shape_rate_findings(&c, out);
    nd_shape_util_findings(&c, out);
    for (size_t i = 0; i < c.nst; i++) {
        for (size_t k = 0; k < c.st[i].n; k++)
            free(c.st[i].f[k].text);
        free(c.st[i].f);
    }
    free(c.l);
    free(copy);
}

/* ---- the scan side ---- */

struct nd_kb_shape_scan {
    const struct nd_kb_shape_set *set;
    const char *name;
    char *tail;
    size_t len;
    bool cut; /* the tail starts inside a line */
    struct nd_findings found;
};

struct nd_kb_shape_scan *nd_kb_shape_scan_new(const struct nd_kb_shape_set *set)
{
    if (!set || !set->n)
        return NULL;
    struct nd_kb_shape_scan *sh = nd_xcalloc(1, sizeof *sh);
    sh->set = set;
    return sh;
}

void nd_kb_shape_begin(struct nd_kb_shape_scan *sh, const char *name)
{
    if (!sh)
        return;
    sh->name = name;
    sh->len = 0;
    sh->cut = false;
}

void nd_kb_shape_feed(struct nd_kb_shape_scan *sh, const char *data, size_t len)
{
    if (!sh || !len)
        return;
    if (!sh->tail)
        sh->tail = nd_xmalloc(2 * ND_SHAPE_TAIL);
    if (len >= ND_SHAPE_TAIL) {
        memcpy(sh->tail, data + len - ND_SHAPE_TAIL, ND_SHAPE_TAIL);
        sh->len = ND_SHAPE_TAIL;
        sh->cut = true;
        return;
    }
    if (sh->len + len > 2 * ND_SHAPE_TAIL) {
        size_t drop = sh->len + len - ND_SHAPE_TAIL;
        memmove(sh->tail, sh->tail + drop, sh->len - drop);
        sh->len -= drop;
        sh->cut = true;
    }
    memcpy(sh->tail + sh->len, data, len);
    sh->len += len;
}

void nd_kb_shape_end(struct nd_kb_shape_scan *sh, long nlines)
{
    if (!sh || !sh->len)
        return;
    const char *t = sh->tail;
    size_t n = sh->len;
    if (sh->cut) { /* from the first whole line */
        const char *nl = memchr(t, '\n', n);
        if (!nl)
            return;
        n -= (size_t)(nl + 1 - t);
        t = nl + 1;
    }
    long lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += t[i] == '\n';
    if (n && t[n - 1] != '\n')
        lines++;
    if (sh->found.n < ND_SHAPE_MAX_KEEP)
        nd_kb_shape_analyze(sh->set, sh->name, t, n, nlines - lines + 1, &sh->found);
    sh->len = 0;
}

static bool nd_shape_refined(const struct nd_kb_shape_set *set, const struct nd_finding *f)
{
    if (strcmp(f->id, "generic.unexplained-error") == 0)
        return f->title && strstr(f->title, "KeyboardInterrupt");
    const struct nd_shape_entry *e = nd_kb_shape_find(set, ND_SHAPE_REFINES, NULL);
    for (size_t i = 0; e && i < e->pat.n; i++)
        if (strcmp(e->pat.v[i].src, f->id) == 0)
            return true;
    return false;
}

void nd_kb_shape_merge(struct nd_kb_shape_scan *sh, struct nd_findings *out, size_t before)
{
    if (!sh || !sh->found.n)
        return;
    if (out->n == before) {
        for (size_t i = 0; i < sh->found.n && i < 2; i++)
            nd_findings_add_copy(out, sh->found.v[i]);
        return;
    }
    /* A Ctrl-C or a bare dump, and the frames or the last step say where it
     * waited: that goes first (a wait that names no waiter adds nothing to
     * the rule); an unexplained KeyboardInterrupt is no failure of its own. */
    const struct nd_finding *top = sh->found.v[0];
    if (!nd_shape_refined(sh->set, out->v[before]) || strncmp(top->id, "shape.stack.stack-", 18) == 0)
        return;
    if (strcmp(out->v[before]->id, "generic.unexplained-error") == 0 && strncmp(top->id, "shape.stack.", 12) == 0) {
        nd_findings_remove(out, before);
    }
    nd_findings_add_copy(out, top);
    struct nd_finding *f = out->v[out->n - 1];
    memmove(&out->v[before + 1], &out->v[before], (out->n - 1 - before) * sizeof *out->v);
    out->v[before] = f;
}

void nd_kb_shape_scan_free(struct nd_kb_shape_scan *sh)
{
    if (!sh)
        return;
    nd_findings_release(&sh->found);
    free(sh->tail);
    free(sh);
}
