/* Logical lines: what the matcher sees of a chunk of log. Launchers and
 * runtimes put a prefix on every physical line ("[rank3]:", "[default0]:",
 * "rank0: ", "(RayWorker pid=123) ", a container runtime's
 * "2024-05-01T10:00:00.123Z stdout F ", vLLM's "ERROR 09-10 03:36:31 [x.py:5] "), and messages continue over several
 * lines (CANN's indented "TraceBack (most recent call last):" block under
 * an EZ9999 line, a message cut at the terminal width). Here the prefixes
 * are stripped and obvious continuations joined into one line, so a rule
 * matches the message however it was printed; a table maps every byte back
 * to its physical line for line numbers and evidence (kb_scan.c).
 *
 * Joining is deliberately narrow: an indented line continues the line above
 * unless it belongs to a Python traceback (frames stay lines of their own,
 * IPython's "Cell In[3], line 5" frames and their source lines too);
 * a line exactly as long as a common terminal width continues into the next
 * when that one does not start a new record; NCCL's bare "Last error:"
 * continues into the line that names the error. Logical lines are capped so a
 * long indented dump cannot become one huge line. */
#include <ctype.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/array.h"
#include "kb/kb_logical.h"

#define ND_KB_JOIN_MAX_LINES 32
#define ND_KB_JOIN_MAX_BYTES 8192

static size_t nd_digits(const char *p, const char *e)
{
    const char *q = p;
    while (q < e && isdigit((unsigned char)*q))
        q++;
    return (size_t)(q - p);
}

/* "2024-05-01T10:00:00[.123][Z|+08:00] " and an optional CRI stream tag. */
static size_t nd_kb_runtime_stamp(const char *l, const char *e)
{
    const char *p = l;
    if (e - p < 20 || nd_digits(p, e) != 4 || p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':')
        return 0;
    p += 19;
    if (p < e && (*p == '.' || *p == ','))
        p += 1 + nd_digits(p + 1, e);
    if (p < e && *p == 'Z')
        p++;
    else if (p < e && (*p == '+' || *p == '-'))
        p += 1 + nd_digits(p + 1, e) + (p + 3 < e && p[3] == ':' ? 1 + nd_digits(p + 4, e) : 0);
    if (p >= e || *p != ' ')
        return 0;
    p++;
    if (e - p >= 9 && (memcmp(p, "stdout ", 7) == 0 || memcmp(p, "stderr ", 7) == 0) && (p[7] == 'F' || p[7] == 'P') &&
        p[8] == ' ')
        p += 9;
    return (size_t)(p - l);
}

/* vLLM's per-line header "ERROR 09-10 03:36:31 [multiproc_executor.py:527] ",
 * which its worker processes put before every line of a traceback. */
static size_t nd_kb_vllm_header(const char *l, const char *e)
{
    static const char *const levels[] = {"DEBUG ", "INFO ", "WARNING ", "ERROR ", "CRITICAL "};
    const char *p = NULL;
    for (size_t i = 0; i < ND_ARRAY_SIZE(levels) && !p; i++) {
        size_t k = strlen(levels[i]);
        if ((size_t)(e - l) > k && memcmp(l, levels[i], k) == 0)
            p = l + k;
    }
    if (!p || e - p < 16 || nd_digits(p, e) != 2 || p[2] != '-' || nd_digits(p + 3, e) != 2 || p[5] != ' ' ||
        nd_digits(p + 6, e) != 2 || p[8] != ':' || p[11] != ':')
        return 0;
    p += 14;
    if (p < e && (*p == '.' || *p == ','))
        p += 1 + nd_digits(p + 1, e);
    if (e - p < 4 || p[0] != ' ' || p[1] != '[')
        return 0;
    const char *c = memchr(p, ']', (size_t)(e - p) < 120 ? (size_t)(e - p) : 120);
    if (!c || c + 1 >= e || c[1] != ' ' || !isdigit((unsigned char)c[-1]))
        return 0;
    return (size_t)(c + 2 - l);
}

size_t nd_kb_line_prefix(const char *l, size_t n)
{
    const char *e = l + n, *p = l;
    for (int round = 0; round < 3 && p < e; round++) {
        const char *q = p;
        if (*q == '[') {
            /* [rank3]: / [default3]: (torchrun --tee / log prefix) */
            const char *w = q + 1;
            if (e - w > 4 && memcmp(w, "rank", 4) == 0)
                w += 4;
            else if (e - w > 7 && memcmp(w, "default", 7) == 0)
                w += 7;
            else
                w = NULL;
            size_t d = w ? nd_digits(w, e) : 0;
            if (d && w + d + 1 < e && w[d] == ']' && w[d + 1] == ':')
                q = w + d + 2;
        } else if (*q == 'r' && e - q > 6 && memcmp(q, "rank", 4) == 0) {
            size_t d = nd_digits(q + 4, e);
            if (d && q + 4 + d + 1 < e && q[4 + d] == ':' && q[5 + d] == ' ')
                q += 4 + d + 1;
        } else if (*q == '(') {
            /* Ray: "(RayWorkerWrapper pid=123) ", "(raylet, ip=10.0.0.1) " */
            const char *c = memchr(q, ')', (size_t)(e - q) < 100 ? (size_t)(e - q) : 100);
            if (c && c + 1 < e && c[1] == ' ' &&
                (memmem(q, (size_t)(c - q), "pid=", 4) || memmem(q, (size_t)(c - q), "ip=", 3)))
                q = c + 2;
        } else if (isdigit((unsigned char)*q)) {
            q += nd_kb_runtime_stamp(q, e);
        } else if (strchr("DIWEC", *q)) {
            q += nd_kb_vllm_header(q, e);
        }
        if (q == p)
            break;
        if (q < e && *q == ' ' && (q == p + 1 || q[-1] == ':'))
            q++;
        p = q;
    }
    return (size_t)(p - l);
}

static bool nd_kb_is_indented(const char *c, const char *e)
{
    return c < e && (*c == ' ' || *c == '\t');
}

static bool nd_kb_starts(const char *c, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - c) >= n && memcmp(c, word, n) == 0;
}

/* An indented line that opens a record of its own (Python frames and
 * their source lines are kept apart by the traceback state instead). */
static bool nd_kb_indent_breaks(const char *c, const char *e)
{
    while (c < e && (*c == ' ' || *c == '\t'))
        c++;
    return c == e || nd_kb_starts(c, e, "File \"") || nd_kb_starts(c, e, "at ") || *c == '^' || *c == '~' ||
           *c == '|' || *c == '-' || *c == '=' || *c == '+';
}

static bool nd_kb_width_wrapped(size_t len)
{
    switch (len) {
    case 80:
    case 100:
    case 120:
    case 128:
    case 132:
    case 140:
    case 150:
    case 160:
    case 180:
    case 200:
    case 220:
    case 240:
    case 250:
    case 256: return true;
    default: return false;
    }
}

/* The start of a line that continues a width-wrapped one: lower case or
 * punctuation, never a new record (timestamp, [LEVEL], Word:). */
static bool nd_kb_wrap_tail(const char *c, const char *e)
{
    if (c >= e)
        return false;
    unsigned char ch = (unsigned char)*c;
    if (islower(ch))
        return true;
    if (isdigit(ch))
        return nd_digits(c, e) < 4 && !(e - c > 2 && (c[2] == '/' || c[2] == ':'));
    return strchr(".,;:)]}'\"/_", ch) != NULL;
}

/* IPython's traceback header puts the exception class first:
 * "RuntimeError            Traceback (most recent call last)". */
static bool nd_kb_ipython_header(const char *c, const char *e)
{
    while (e > c && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    static const char tail[] = " Traceback (most recent call last)";
    size_t n = sizeof tail - 1;
    return (size_t)(e - c) > n && memcmp(e - n, tail, n) == 0;
}

/* A line of an IPython traceback that is not indented: a frame header
 * ("Cell In[12], line 3", "Input In [3], in <cell line: 5>()",
 * "File ~/x.py:118, in f()", "<ipython-input-3-ab> in <module>",
 * "~/x.py in f()") or the arrow on the failing source line ("----> 3 x()").
 * The indented source lines around the arrow belong to the frame too. */
static bool nd_kb_ipython_frame(const char *c, const char *e)
{
    if (nd_kb_starts(c, e, "Cell In[") || nd_kb_starts(c, e, "Input In [") || nd_kb_starts(c, e, "File ") ||
        nd_kb_starts(c, e, "<ipython-input-") || nd_kb_starts(c, e, "~/"))
        return true;
    const char *p = c;
    while (p < e && *p == '-')
        p++;
    if (p > c && p < e && *p == '>')
        return true;
    return *c == '/' && memmem(c, (size_t)(e - c), " in ", 4) != NULL;
}

/* NCCL 2.1x ends its exception text with "Last error:" alone on a line and
 * puts the warning it names (the cause) on the next one: the two are one
 * message. */
static bool nd_kb_ends_last_error(const char *c, const char *e)
{
    while (e > c && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    static const char tail[] = "Last error:";
    size_t n = sizeof tail - 1;
    return (size_t)(e - c) >= n && memcmp(e - n, tail, n) == 0;
}

/* The line after "Last error:" that carries its detail. */
static bool nd_kb_last_error_detail(const char *c, const char *e)
{
    while (c < e && (*c == ' ' || *c == '\t'))
        c++;
    return c < e && *c != '\r' && !nd_kb_starts(c, e, "Traceback (most recent call last)");
}

bool nd_kb_logical_needed(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    bool prev_indent_ok = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        if (n && (*p == '[' || *p == 'r' || *p == '(' || isdigit((unsigned char)*p) || strchr("DIWEC", *p)) &&
            nd_kb_line_prefix(p, n))
            return true;
        if (n && (*p == ' ' || *p == '\t') && prev_indent_ok)
            return true;
        if (nd_kb_width_wrapped(n) && le < end && nd_kb_wrap_tail(le + 1, end))
            return true;
        if (le < end && nd_kb_ends_last_error(p, le))
            return true;
        /* An indented line under a Python "Traceback" line is a frame. */
        prev_indent_ok = n && !(*p == ' ' || *p == '\t') && !nd_kb_starts(p, le, "Traceback (most recent call last)");
        p = nl ? nl + 1 : end;
    }
    return false;
}

bool nd_kb_line_continues(const char *prev, size_t pn, const char *line, size_t n)
{
    const char *pc = prev + nd_kb_line_prefix(prev, pn), *pe = prev + pn;
    const char *c = line + nd_kb_line_prefix(line, n), *e = line + n;
    if (pe > pc && pe[-1] == '\r')
        pe--;
    return (nd_kb_is_indented(c, e) && pe > pc) || nd_kb_ends_last_error(pc, pe) ||
           (nd_kb_width_wrapped((size_t)(pe - pc)) && nd_kb_wrap_tail(c, e));
}

size_t nd_kb_logical_build(const char *buf, size_t len, struct nd_kb_logical *lg)
{
    lg->nlines = 0;
    size_t need = len + 1;
    if (lg->cap < need) {
        free(lg->buf);
        lg->buf = nd_xmalloc(need);
        lg->cap = need;
    }
    size_t w = 0;
    const char *p = buf, *end = buf + len;
    bool in_pytb = false, in_ipytb = false;
    size_t cur_start = 0, cur_lines = 0; /* current logical line: first physical index, count */
    size_t prev_len = 0;                 /* content length of the previous physical line */
    bool have_prev = false, prev_last_error = false;
    /* Lines copied as they are, each with its '\n', are one run of the
     * original: copied in one go when the run ends (a prefix, a joint, the
     * end), not line by line. w counts the run's bytes as written. */
    const char *run = NULL;
    size_t run_w = 0, run_n = 0;
#define ND_KB_RUN_FLUSH()                                                                                              \
    do {                                                                                                               \
        if (run_n)                                                                                                     \
            memcpy(lg->buf + run_w, run, run_n);                                                                       \
        run_n = 0;                                                                                                     \
    } while (0)
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        size_t pre = nd_kb_line_prefix(p, n);
        const char *c = p + pre;
        size_t cn = n - pre;
        bool indented = nd_kb_is_indented(c, le);
        bool join = false, tight = false;
        if (have_prev && cur_lines < ND_KB_JOIN_MAX_LINES && w - lg->lines[cur_start].n_off < ND_KB_JOIN_MAX_BYTES) {
            if (prev_last_error && nd_kb_last_error_detail(c, le))
                join = true;
            else if (indented && !in_pytb && !in_ipytb && !nd_kb_indent_breaks(c, le))
                join = true;
            else if (!indented && nd_kb_width_wrapped(prev_len) && nd_kb_wrap_tail(c, le))
                join = tight = true;
        }
        if (!indented) {
            in_pytb = nd_kb_starts(c, le, "Traceback (most recent call last)");
            /* IPython's frames are not indented and blank lines part them:
             * its traceback lasts until a line that is neither. */
            in_ipytb = nd_kb_ipython_header(c, le) || (in_ipytb && (cn == 0 || nd_kb_ipython_frame(c, le)));
        }
        ND_ALLOC_GROW(lg->lines, lg->nlines + 1, lg->tcap);
        struct nd_kb_pline *pl = &lg->lines[lg->nlines];
        if (join) {
            /* The '\n' written after the previous line becomes the joint. */
            ND_KB_RUN_FLUSH();
            w--;
            if (!tight) {
                lg->buf[w++] = ' ';
                while (c < le && (*c == ' ' || *c == '\t'))
                    c++;
            }
            cur_lines++;
        } else {
            cur_start = lg->nlines;
            cur_lines = 1;
        }
        pl->o_line = (size_t)(p - buf);
        pl->o_content = (size_t)(c - buf);
        pl->o_end = (size_t)(le - buf);
        pl->n_off = w;
        pl->logical = cur_start;
        if (join || !nl) {
            ND_KB_RUN_FLUSH();
            memcpy(lg->buf + w, c, (size_t)(le - c));
            w += (size_t)(le - c);
            lg->buf[w++] = '\n';
        } else {
            /* The content and its '\n' read the same in both texts. */
            size_t k = (size_t)(nl + 1 - c);
            if (!(run_n && run + run_n == c)) {
                ND_KB_RUN_FLUSH();
                run = c;
                run_w = w;
            }
            run_n += k;
            w += k;
        }
        lg->nlines++;
        prev_len = cn;
        have_prev = n > 0;
        prev_last_error = nd_kb_ends_last_error(c, le);
        p = nl ? nl + 1 : end;
    }
    ND_KB_RUN_FLUSH();
#undef ND_KB_RUN_FLUSH
    /* A chunk that did not end in '\n' keeps its last line open. */
    if (len && buf[len - 1] != '\n' && w)
        w--;
    lg->len = w;
    return w;
}

void nd_kb_logical_release(struct nd_kb_logical *lg)
{
    free(lg->buf);
    free(lg->lines);
    memset(lg, 0, sizeof *lg);
}
