/* explain: a "stalled" log-shape finding checked against the job's end.
 * A plog directory holds one file per process and start: the process that
 * set up HCCL logs the set-up there and its training steps elsewhere, so a
 * plog whose last line is HCCL initialisation says nothing about a stall
 * when the training log beside it goes on for an hour. Only the tail of
 * each input is read. */
#include "cmd/explain_stall.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "kb/kb.h"

#define ND_STALL_TAIL 8192   /* bytes read from the end of each input */
#define ND_STALL_FILES 512   /* inputs looked at, at most */
#define ND_STALL_DEPTH 4     /* directory levels walked */
#define ND_STALL_MARGIN 60.0 /* seconds: a log going on less than this is the same moment */

struct nd_stall_end {
    double t;
    char path[PATH_MAX];
    size_t files;
};

bool nd_explain_last_timestamp(const char *buf, size_t len, double *t)
{
    size_t end = len;
    while (end > 0) {
        size_t b = end;
        while (b > 0 && buf[b - 1] != '\n')
            b--;
        if (end > b && nd_kb_parse_timestamp(buf + b, end - b, t))
            return true;
        if (b == 0)
            break;
        end = b - 1;
    }
    return false;
}

static void nd_stall_file(int fd, const char *path, struct nd_stall_end *e)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return;
    off_t at = st.st_size > ND_STALL_TAIL ? st.st_size - ND_STALL_TAIL : 0;
    char *buf = nd_xmalloc(ND_STALL_TAIL);
    ssize_t n = pread(fd, buf, ND_STALL_TAIL, at);
    double t;
    /* Compressed or binary: its tail is no text. */
    if (n > 0 && !memchr(buf, '\0', (size_t)n) && nd_explain_last_timestamp(buf, (size_t)n, &t) && t > e->t) {
        e->t = t;
        snprintf(e->path, sizeof e->path, "%s", path);
    }
    free(buf);
}

static void nd_stall_walk(const char *path, bool follow, int depth, struct nd_stall_end *e)
{
    if (e->files >= ND_STALL_FILES)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return;
    }
    if (S_ISREG(st.st_mode)) {
        e->files++;
        nd_stall_file(fd, path, e);
        close(fd);
        return;
    }
    if (!S_ISDIR(st.st_mode) || depth >= ND_STALL_DEPTH) {
        close(fd);
        return;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) && e->files < ND_STALL_FILES) {
        if (de->d_name[0] == '.')
            continue;
        char sub[PATH_MAX];
        if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >= (int)sizeof sub)
            continue;
        nd_stall_walk(sub, follow, depth + 1, e);
    }
    closedir(d);
}

static bool nd_stall_id(const char *id)
{
    return strncmp(id, "shape.stalled.", 14) == 0;
}

void nd_explain_stall_check(struct nd_findings *fs, char *const *paths, size_t npaths, bool follow)
{
    bool any = false;
    for (size_t i = 0; i < fs->n && !any; i++)
        any = nd_stall_id(fs->v[i]->id) && fs->v[i]->severity > ND_SEV_INFO;
    if (!any)
        return;
    struct nd_stall_end *e = nd_xcalloc(1, sizeof *e);
    e->t = -1;
    for (size_t i = 0; i < npaths; i++)
        if (strcmp(paths[i], "-") != 0)
            nd_stall_walk(paths[i], follow, 0, e);
    for (size_t i = 0; e->t >= 0 && i < fs->n; i++) {
        struct nd_finding *f = fs->v[i];
        if (!nd_stall_id(f->id) || f->severity == ND_SEV_INFO || f->nevidence == 0)
            continue;
        /* The stalled log's last line is its last evidence. */
        const struct nd_evidence *last = &f->evidence[f->nevidence - 1];
        const char *text = last->text;
        double t;
        if (!nd_kb_parse_timestamp(text, strlen(text), &t) || e->t - t < ND_STALL_MARGIN)
            continue;
        if (last->file && strcmp(last->file, e->path) == 0)
            continue;
        char *title = nd_xasprintf("Not a stall, the job went on: %s", f->title);
        free(f->title);
        f->title = title;
        f->severity = ND_SEV_INFO;
        f->confidence = ND_CONF_MEDIUM;
        nd_finding_add_evidence(f, e->path, 0,
                                "another log of the job goes on for %.0f minutes after this log's last line",
                                (e->t - t) / 60);
    }
    free(e);
    /* A note now: after the findings that still stand (the first is the root cause). */
    size_t j = 0;
    struct nd_finding **notes = nd_xcalloc(fs->n ? fs->n : 1, sizeof *notes);
    size_t nnotes = 0;
    for (size_t i = 0; i < fs->n; i++) {
        if (nd_stall_id(fs->v[i]->id) && fs->v[i]->severity == ND_SEV_INFO)
            notes[nnotes++] = fs->v[i];
        else
            fs->v[j++] = fs->v[i];
    }
    for (size_t i = 0; i < nnotes; i++)
        fs->v[j++] = notes[i];
    free(notes);
}
