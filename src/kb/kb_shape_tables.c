/* Tool tables pasted into a log, read one line at a time for the log-shape
 * analysis: device rows of nvidia-smi, npu-smi (info and info watch),
 * rocm-smi, nvidia-smi dmon and --query-gpu CSV, gpustat; the process rows
 * of the smi tools; and top / ps rows of the host's processes. A table's
 * header says which column holds what, so the reader keeps the last header
 * it saw. Pure: no I/O, a line in, a row out. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kb/kb_shape.h"

#define ND_TBL_MAX_COLS 32

static bool nd_tbl_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Splits s at runs of separators: whitespace, or a comma (csv) with the
 * blanks around it. Returns the number of fields; each is [b, e). */
static int nd_tbl_split(const char *s, bool csv, const char **b, const char **e)
{
    int n = 0;
    const char *p = s;
    while (*p && n < ND_TBL_MAX_COLS) {
        while (*p == ' ' || *p == '\t' || (csv && *p == ','))
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && !(csv ? *q == ',' : (*q == ' ' || *q == '\t')))
            q++;
        const char *t = q;
        while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        b[n] = p;
        e[n] = t;
        n++;
        p = q;
    }
    return n;
}

static bool nd_tbl_field_is(const char *b, const char *e, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(e - b) == n && strncmp(b, name, n) == 0;
}

static bool nd_tbl_field_starts(const char *b, const char *e, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(e - b) >= n && strncmp(b, name, n) == 0;
}

/* A number at the start of the field ("12", "3.5", "0 %", "300MiB"); false
 * for "-", "N/A" and words. */
static bool nd_tbl_num(const char *b, const char *e, double *v)
{
    if (b >= e || !(isdigit((unsigned char)*b) || (*b == '.' && b + 1 < e && isdigit((unsigned char)b[1]))))
        return false;
    char buf[32];
    size_t n = (size_t)(e - b) < sizeof buf - 1 ? (size_t)(e - b) : sizeof buf - 1;
    memcpy(buf, b, n);
    buf[n] = '\0';
    *v = strtod(buf, NULL);
    return true;
}

static bool nd_tbl_all_digits(const char *b, const char *e)
{
    if (b >= e)
        return false;
    for (const char *p = b; p < e; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return true;
}

/* The number that ends just before p (digits, maybe a decimal point). */
static bool nd_tbl_num_before(const char *start, const char *p, double *v)
{
    const char *q = p;
    while (q > start && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
        q--;
    return nd_tbl_num(q, p, v);
}

void nd_shape_table_init(struct nd_shape_table *t)
{
    memset(t, 0, sizeof *t);
    t->col_util = t->col_mem = t->col_used = t->col_total = t->col_key = -1;
    t->col_cpu = t->col_cmd = -1;
}

static void nd_tbl_reset(struct nd_shape_table *t)
{
    struct nd_shape_table keep = *t;
    nd_shape_table_init(t);
    t->in_procs = keep.in_procs;
    t->ordinal = keep.ordinal;
    t->smi_headers = keep.smi_headers;
    t->bus_headers = keep.bus_headers;
}

/* The text of the field after the next '|' at or after s, its leading
 * blanks skipped; NULL when the row has no further bar. */
static const char *nd_tbl_next_field(const char *s)
{
    const char *bar = strchr(s, '|');
    if (!bar)
        return NULL;
    const char *p = bar + 1;
    while (*p == ' ')
        p++;
    return p;
}

/* ---- nvidia-smi and npu-smi boxes ---- */

/* Device rows of nvidia-smi ("| 15000MiB / 32510MiB |   0%  Default |") and
 * npu-smi's second row per chip ("| 0   | 0000:C1:00.0  | 0   0 / 0   3396 /
 * 65536 |"): utilisation and memory in use. */
static bool nd_tbl_smi_device(const char *s, struct nd_shape_row *r)
{
    if (s[0] != '|')
        return false;
    const char *m = strstr(s, "MiB / ");
    if (m) {
        double used = 0, total = 0;
        const char *p = nd_tbl_next_field(m);
        if (!p || !isdigit((unsigned char)*p))
            return false;
        r->util = atoi(p);
        while (isdigit((unsigned char)*p))
            p++;
        if (*p != '%')
            return false;
        const char *tb = m + 6;
        while (*tb == ' ')
            tb++;
        if (nd_tbl_num_before(s, m, &used) && nd_tbl_num(tb, tb + strcspn(tb, "M |"), &total) && total > 0)
            r->mem_ratio = used / total;
        return true;
    }
    const char *p = nd_tbl_next_field(s + 1);
    if (!p || !(isxdigit((unsigned char)p[0]) && strlen(p) > 12 && p[4] == ':' && p[7] == ':' && p[10] == '.'))
        return false;
    p = nd_tbl_next_field(p);
    if (!p || !isdigit((unsigned char)*p))
        return false;
    r->util = atoi(p);
    /* The last "used / total" of the row is HBM (or DDR where there is none). */
    const char *end = strrchr(p, '|');
    if (!end)
        end = p + strlen(p);
    for (const char *q = end; q > p + 2; q--) {
        if (q[-1] != '/' || q[-2] != ' ')
            continue;
        double used = 0, total = 0;
        const char *u = q - 2;
        const char *tb = q;
        while (*tb == ' ')
            tb++;
        if (nd_tbl_num_before(p, u, &used) && nd_tbl_num(tb, tb + strcspn(tb, " |"), &total) && total > 0)
            r->mem_ratio = used / total;
        break;
    }
    return true;
}

/* A process row of either tool's process table. */
static bool nd_tbl_smi_proc(const char *s)
{
    if (s[0] != '|' || strstr(s, "No running processes") || strstr(s, "Process id") || strstr(s, "PID"))
        return false;
    size_t n = strlen(s);
    if (strstr(s, "MiB |") || (n > 4 && strstr(s, "MiB") && s[n - 1] == '|'))
        return true;
    /* npu-smi: "| 0   0   | 6513   | name   | 617  |" */
    const char *p = nd_tbl_next_field(s + 1);
    return p && isdigit((unsigned char)*p);
}

/* ---- gpustat ---- */

/* "[0] NVIDIA A100-SXM4-40GB | 35°C,   0 % | 12000 / 40960 MB | user(11990M)" */
static bool nd_tbl_gpustat(const char *s, struct nd_shape_row *r)
{
    if (s[0] != '[' || !isdigit((unsigned char)s[1]))
        return false;
    const char *p = s + 1;
    int key = atoi(p);
    while (isdigit((unsigned char)*p))
        p++;
    if (*p != ']')
        return false;
    const char *bar = strchr(p, '|');
    if (!bar)
        return false;
    const char *comma = strchr(bar, ',');
    const char *bar2 = comma ? strchr(comma, '|') : NULL;
    if (!bar2)
        return false;
    p = comma + 1;
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    r->util = atoi(p);
    while (isdigit((unsigned char)*p))
        p++;
    while (*p == ' ')
        p++;
    if (*p != '%')
        return false;
    r->key = key;
    const char *slash = strchr(bar2, '/');
    const char *bar3 = strchr(bar2 + 1, '|');
    double used = 0, total = 0;
    if (slash && (!bar3 || slash < bar3)) {
        const char *u = slash;
        while (u > bar2 && u[-1] == ' ')
            u--;
        const char *tb = slash + 1;
        while (*tb == ' ')
            tb++;
        if (nd_tbl_num_before(bar2, u, &used) && nd_tbl_num(tb, tb + strcspn(tb, " M|"), &total) && total > 0)
            r->mem_ratio = used / total;
    }
    return true;
}

/* ---- headers ---- */

static bool nd_tbl_header(struct nd_shape_table *t, const char *s)
{
    const char *b[ND_TBL_MAX_COLS], *e[ND_TBL_MAX_COLS];
    /* nvidia-smi dmon: "# gpu   pwr gtemp mtemp    sm   mem ..." (the
     * units line under it also starts with '#'). */
    if (s[0] == '#') {
        int n = nd_tbl_split(s + 1, false, b, e);
        if (n >= 3 && nd_tbl_field_is(b[0], e[0], "gpu")) {
            nd_tbl_reset(t);
            for (int i = 0; i < n; i++)
                if (nd_tbl_field_is(b[i], e[i], "sm"))
                    t->col_util = i;
            t->kind = t->col_util >= 0 ? ND_TBL_COLS : ND_TBL_NONE;
            t->col_key = 0;
            return true;
        }
        return t->kind == ND_TBL_COLS && t->col_key == 0 && t->ncols == 0;
    }
    /* nvidia-smi --query-gpu=...--format=csv */
    if (strstr(s, "utilization.gpu")) {
        nd_tbl_reset(t);
        int n = nd_tbl_split(s, true, b, e);
        for (int i = 0; i < n; i++) {
            if (nd_tbl_field_starts(b[i], e[i], "utilization.gpu"))
                t->col_util = i;
            else if (nd_tbl_field_starts(b[i], e[i], "memory.used"))
                t->col_used = i;
            else if (nd_tbl_field_starts(b[i], e[i], "memory.total"))
                t->col_total = i;
            else if (nd_tbl_field_is(b[i], e[i], "index"))
                t->col_key = i;
        }
        t->kind = ND_TBL_COLS;
        t->csv = true;
        t->ncols = n;
        return true;
    }
    /* npu-smi info watch: "NpuID(Idx)  ChipId(Idx) Pwr(W)  Temp(C)  AI Core(%) ..." */
    if (strstr(s, "AI Core(%)") && strstr(s, "NpuID")) {
        nd_tbl_reset(t);
        /* Some of its names have a blank inside ("AI Core(%)", "Memory
         * BW(%)"): written without it, the header splits like its rows. */
        static const char *const two[] = {"AI Core", "AI Cpu", "Ctrl Cpu", "Memory BW"};
        char hdr[512];
        size_t hn = 0;
        for (const char *p = s; *p && hn < sizeof hdr - 1; p++) {
            bool join = false;
            for (size_t k = 0; k < sizeof two / sizeof two[0] && !join; k++) {
                const char *sp = strchr(two[k], ' ');
                size_t before = (size_t)(sp - two[k]);
                join = *p == ' ' && (size_t)(p - s) >= before && strncmp(p - before, two[k], strlen(two[k])) == 0;
            }
            if (!join)
                hdr[hn++] = *p;
        }
        hdr[hn] = '\0';
        int n = nd_tbl_split(hdr, false, b, e);
        for (int i = 0; i < n; i++) {
            if (nd_tbl_field_is(b[i], e[i], "AICore(%)"))
                t->col_util = i;
            else if (nd_tbl_field_is(b[i], e[i], "Memory(%)"))
                t->col_mem = i;
            else if (nd_tbl_field_starts(b[i], e[i], "NpuID"))
                t->col_key = i;
        }
        t->kind = t->col_util >= 0 ? ND_TBL_COLS : ND_TBL_NONE;
        return true;
    }
    /* rocm-smi's concise table ends in "VRAM%  GPU%". */
    size_t len = strlen(s);
    if (len > 10 && strcmp(s + len - 4, "GPU%") == 0 && strstr(s, "VRAM%")) {
        nd_tbl_reset(t);
        t->kind = ND_TBL_CONCISE;
        return true;
    }
    /* top (PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND) and ps
     * (USER PID %CPU %MEM ... COMMAND). */
    if (strstr(s, "%CPU") && strstr(s, "PID") && (strstr(s, "COMMAND") || strstr(s, "CMD"))) {
        nd_tbl_reset(t);
        int n = nd_tbl_split(s, false, b, e);
        for (int i = 0; i < n; i++) {
            if (nd_tbl_field_is(b[i], e[i], "%CPU"))
                t->col_cpu = i;
            else if (nd_tbl_field_is(b[i], e[i], "COMMAND") || nd_tbl_field_is(b[i], e[i], "CMD"))
                t->col_cmd = i;
        }
        t->kind = t->col_cpu >= 0 && t->col_cmd > t->col_cpu ? ND_TBL_TOP : ND_TBL_NONE;
        return true;
    }
    return false;
}

/* ---- rows under a header ---- */

static bool nd_tbl_cols_row(struct nd_shape_table *t, const char *s, struct nd_shape_row *r)
{
    const char *b[ND_TBL_MAX_COLS], *e[ND_TBL_MAX_COLS];
    int n = nd_tbl_split(s, t->csv, b, e);
    if (t->csv && n != t->ncols)
        return false;
    if (t->col_util < 0 || n <= t->col_util || !nd_tbl_all_digits(b[0], e[0]))
        return false;
    double v = 0;
    if (!nd_tbl_num(b[t->col_util], e[t->col_util], &v))
        return false;
    r->util = (int)v;
    r->key = t->col_key >= 0 && t->col_key < n ? atoi(b[t->col_key]) : t->ordinal;
    double used = 0, total = 0;
    if (t->col_mem >= 0 && t->col_mem < n && nd_tbl_num(b[t->col_mem], e[t->col_mem], &v))
        r->mem_ratio = v / 100;
    else if (t->col_used >= 0 && t->col_total >= 0 && t->col_used < n && t->col_total < n &&
             nd_tbl_num(b[t->col_used], e[t->col_used], &used) &&
             nd_tbl_num(b[t->col_total], e[t->col_total], &total) && total > 0)
        r->mem_ratio = used / total;
    return true;
}

static bool nd_tbl_concise_row(const char *s, struct nd_shape_row *r)
{
    const char *b[ND_TBL_MAX_COLS], *e[ND_TBL_MAX_COLS];
    int n = nd_tbl_split(s, false, b, e);
    if (n < 4 || !nd_tbl_all_digits(b[0], e[0]) || e[n - 1][-1] != '%' || e[n - 2][-1] != '%')
        return false;
    double util = 0, vram = 0;
    if (!nd_tbl_num(b[n - 1], e[n - 1], &util) || !nd_tbl_num(b[n - 2], e[n - 2], &vram))
        return false;
    r->util = (int)util;
    r->mem_ratio = vram / 100;
    r->key = atoi(b[0]);
    return true;
}

static bool nd_tbl_top_row(const struct nd_shape_table *t, const char *s, struct nd_shape_row *r)
{
    const char *b[ND_TBL_MAX_COLS], *e[ND_TBL_MAX_COLS];
    int n = nd_tbl_split(s, false, b, e);
    double cpu = 0;
    if (n <= t->col_cmd || !nd_tbl_num(b[t->col_cpu], e[t->col_cpu], &cpu))
        return false;
    /* A PID in the first or second column: a row, not a summary line. */
    if (!nd_tbl_all_digits(b[0], e[0]) && !nd_tbl_all_digits(b[1], e[1]))
        return false;
    r->cpu = cpu;
    for (int i = t->col_cmd; i < n && !r->python; i++) {
        const char *c = b[i];
        size_t len = (size_t)(e[i] - b[i]);
        /* The program: its base name, without a path. */
        for (const char *q = b[i]; q < e[i]; q++)
            if (*q == '/') {
                c = q + 1;
                len = (size_t)(e[i] - c);
            }
        r->python = (len >= 6 && strncmp(c, "python", 6) == 0) ||
                    (len >= 14 && strncmp(c, "pt_main_thread", 14) == 0) || (len >= 8 && strncmp(c, "torchrun", 8) == 0);
        if (i > t->col_cmd + 1)
            break; /* the program and its first argument ("python3 train.py") */
    }
    return true;
}

enum nd_shape_row_kind nd_shape_table_line(struct nd_shape_table *t, const char *s, struct nd_shape_row *r)
{
    memset(r, 0, sizeof *r);
    r->util = -1;
    r->mem_ratio = -1;
    r->key = -1;
    if (!s || !*s)
        return ND_ROW_NONE;
    if (strstr(s, "NVIDIA-SMI ") || (nd_tbl_prefix(s, "| npu-smi ") && isdigit((unsigned char)s[10]))) {
        nd_tbl_reset(t);
        t->in_procs = false;
        t->ordinal = 0;
        t->smi_headers++;
        return ND_ROW_TABLE;
    }
    if (s[0] == '|' && strstr(s, "Bus-Id") && !t->in_procs)
        t->bus_headers++;
    if (strstr(s, "Processes:") || strstr(s, "Process id") || strstr(s, "Process name")) {
        t->in_procs = true;
        return ND_ROW_TABLE;
    }
    if (nd_tbl_header(t, s))
        return ND_ROW_TABLE;
    if (s[0] == '|' || s[0] == '+') {
        if (t->in_procs)
            return nd_tbl_smi_proc(s) ? ND_ROW_PROC : ND_ROW_TABLE;
        if (nd_tbl_smi_device(s, r)) {
            r->key = t->ordinal++;
            return ND_ROW_DEVICE;
        }
        return ND_ROW_TABLE;
    }
    if (nd_tbl_gpustat(s, r))
        return ND_ROW_DEVICE;
    switch (t->kind) {
    case ND_TBL_COLS:
        if (nd_tbl_cols_row(t, s, r)) {
            t->ordinal++;
            return ND_ROW_DEVICE;
        }
        break;
    case ND_TBL_CONCISE:
        if (nd_tbl_concise_row(s, r))
            return ND_ROW_DEVICE;
        if (s[0] == '=' || s[0] == '(' || s[0] == '-')
            return ND_ROW_TABLE;
        break;
    case ND_TBL_TOP:
        if (nd_tbl_top_row(t, s, r))
            return ND_ROW_HOST;
        break;
    case ND_TBL_NONE: return ND_ROW_NONE;
    }
    /* Any other line ends the table. */
    nd_tbl_reset(t);
    return ND_ROW_NONE;
}
