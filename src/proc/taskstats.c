/* Exit statuses from the kernel's taskstats notices (see taskstats.h). */
#include "proc/taskstats.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/strbuf.h"

struct nd_exit_listener {
    int fd;
    bool seen; /* the status below belongs to seen_pid */
    pid_t seen_pid;
    int seen_ws;
};

/* Requests are small: a header, a generic header and one attribute. */
struct nd_genl_req {
    struct nlmsghdr n;
    struct genlmsghdr g;
    char buf[256];
};

static void nd_genl_attr(struct nd_genl_req *r, unsigned short type, const void *data, size_t len)
{
    struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));
    a->nla_type = type;
    a->nla_len = (unsigned short)(NLA_HDRLEN + len);
    memcpy((char *)a + NLA_HDRLEN, data, len);
    r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static int nd_genl_send(int fd, struct nd_genl_req *r)
{
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    ssize_t n = sendto(fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof to);
    return n == (ssize_t)r->n.nlmsg_len ? 0 : -errno;
}

/* The first attribute of that type in a run of attributes, or NULL. */
static const struct nlattr *nd_nla_find(const void *p, size_t len, unsigned short type)
{
    const char *c = p;
    while (len >= NLA_HDRLEN) {
        const struct nlattr *a = (const struct nlattr *)c;
        if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
            return NULL;
        if ((a->nla_type & NLA_TYPE_MASK) == type)
            return a;
        size_t step = NLA_ALIGN(a->nla_len);
        if (step >= len)
            return NULL;
        c += step;
        len -= step;
    }
    return NULL;
}

/* The answer to one request: 0 (an ACK or the reply) with the reply's
 * attributes copied to attrs, or the kernel's negative errno. */
static int nd_genl_reply(int fd, char *attrs, size_t cap, size_t *alen)
{
    char buf[4096];
    struct pollfd pf = {fd, POLLIN, 0};
    if (poll(&pf, 1, 2000) <= 0)
        return -ETIMEDOUT;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0)
        return -errno;
    const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
    if (!NLMSG_OK(h, (size_t)n))
        return -EPROTO;
    if (h->nlmsg_type == NLMSG_ERROR) {
        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
            return -EPROTO;
        const struct nlmsgerr *e = NLMSG_DATA(h);
        return e->error;
    }
    size_t off = NLMSG_LENGTH(GENL_HDRLEN);
    if (h->nlmsg_len < off)
        return -EPROTO;
    size_t len = h->nlmsg_len - off;
    if (attrs) {
        if (len > cap)
            len = cap;
        memcpy(attrs, (const char *)h + off, len);
        *alen = len;
    }
    return 0;
}

int nd_exit_listener_open(struct nd_exit_listener **out)
{
    *out = NULL;
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0)
        return -errno;
    /* Room for bursts of exits elsewhere on the host between two reads. */
    int rcv = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    if (bind(fd, (struct sockaddr *)&me, sizeof me) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    /* The family's number, by name. */
    struct nd_genl_req r;
    memset(&r, 0, sizeof r);
    r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
    r.n.nlmsg_type = GENL_ID_CTRL;
    r.n.nlmsg_flags = NLM_F_REQUEST;
    r.g.cmd = CTRL_CMD_GETFAMILY;
    r.g.version = 1;
    nd_genl_attr(&r, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME, sizeof TASKSTATS_GENL_NAME);
    char attrs[2048];
    size_t alen = 0;
    int rc = nd_genl_send(fd, &r);
    if (rc == 0)
        rc = nd_genl_reply(fd, attrs, sizeof attrs, &alen);
    const struct nlattr *id = rc == 0 ? nd_nla_find(attrs, alen, CTRL_ATTR_FAMILY_ID) : NULL;
    if (rc == 0 && (!id || id->nla_len < NLA_HDRLEN + sizeof(uint16_t)))
        rc = -ENOENT;
    if (rc == 0) {
        uint16_t family;
        memcpy(&family, (const char *)id + NLA_HDRLEN, sizeof family);
        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
        char mask[32];
        snprintf(mask, sizeof mask, "0-%ld", ncpu > 1 ? ncpu - 1 : 0);
        memset(&r, 0, sizeof r);
        r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
        r.n.nlmsg_type = family;
        r.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        r.g.cmd = TASKSTATS_CMD_GET;
        r.g.version = 1;
        nd_genl_attr(&r, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask, strlen(mask) + 1);
        rc = nd_genl_send(fd, &r);
        if (rc == 0)
            rc = nd_genl_reply(fd, NULL, 0, NULL);
    }
    if (rc < 0) {
        close(fd);
        return rc;
    }
    struct nd_exit_listener *l = nd_xcalloc(1, sizeof *l);
    l->fd = fd;
    *out = l;
    return 0;
}

/* The notice in one TASKSTATS_TYPE_AGGR_PID attribute's payload (pid < 0:
 * any pid). */
static bool nd_taskstats_aggr(const void *p, size_t len, pid_t pid, struct nd_exit_notice *n)
{
    const struct nlattr *pa = nd_nla_find(p, len, TASKSTATS_TYPE_PID);
    const struct nlattr *sa = nd_nla_find(p, len, TASKSTATS_TYPE_STATS);
    if (!pa || !sa || pa->nla_len < NLA_HDRLEN + sizeof(uint32_t))
        return false;
    uint32_t got;
    memcpy(&got, (const char *)pa + NLA_HDRLEN, sizeof got);
    /* Older and newer kernels differ in the struct's length, never in
     * where its first fields are. */
    size_t need = offsetof(struct taskstats, ac_exitcode) + sizeof(uint32_t);
    if ((pid >= 0 && (pid_t)got != pid) || sa->nla_len < NLA_HDRLEN + need)
        return false;
    const char *ts = (const char *)sa + NLA_HDRLEN;
    size_t have = sa->nla_len - NLA_HDRLEN;
    memset(n, 0, sizeof *n);
    n->pid = (pid_t)got;
    uint32_t code;
    memcpy(&code, ts + offsetof(struct taskstats, ac_exitcode), sizeof code);
    n->ws = (int)(code & 0xffff);
    /* The parent and the name tell whose a process was that ended before
     * anyone saw it alive. */
    if (have >= offsetof(struct taskstats, ac_ppid) + sizeof(uint32_t)) {
        uint32_t ppid;
        memcpy(&ppid, ts + offsetof(struct taskstats, ac_ppid), sizeof ppid);
        n->ppid = ppid <= (uint32_t)INT32_MAX ? (pid_t)ppid : 0;
    }
    if (have >= offsetof(struct taskstats, ac_comm) + TS_COMM_LEN) {
        size_t k = 0;
        const char *c = ts + offsetof(struct taskstats, ac_comm);
        for (; k < TS_COMM_LEN && k + 1 < sizeof n->comm && c[k]; k++)
            n->comm[k] = c[k] >= 0x20 && c[k] < 0x7f ? c[k] : '?';
        n->comm[k] = '\0';
    }
#if TASKSTATS_VERSION >= 12
    uint16_t version;
    memcpy(&version, ts + offsetof(struct taskstats, version), sizeof version);
    if (version >= 12 && have >= offsetof(struct taskstats, ac_tgid) + sizeof(uint32_t)) {
        uint32_t tgid;
        memcpy(&tgid, ts + offsetof(struct taskstats, ac_tgid), sizeof tgid);
        n->tgid = tgid <= (uint32_t)INT32_MAX ? (pid_t)tgid : 0;
    }
#endif
    return true;
}

bool nd_taskstats_parse(const void *buf, size_t len, pid_t pid, int *ws)
{
    const char *c = buf;
    while (len >= NLMSG_HDRLEN) {
        const struct nlmsghdr *h = (const struct nlmsghdr *)c;
        if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > len)
            return false;
        if (h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) && h->nlmsg_type >= NLMSG_MIN_TYPE) {
            const char *attrs = c + NLMSG_LENGTH(GENL_HDRLEN);
            size_t alen = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
            const struct nlattr *agg = nd_nla_find(attrs, alen, TASKSTATS_TYPE_AGGR_PID);
            struct nd_exit_notice n;
            if (pid >= 0 && agg && nd_taskstats_aggr((const char *)agg + NLA_HDRLEN, agg->nla_len - NLA_HDRLEN, pid, &n)) {
                *ws = n.ws;
                return true;
            }
        }
        size_t step = NLMSG_ALIGN(h->nlmsg_len);
        if (step >= len)
            break;
        c += step;
        len -= step;
    }
    return false;
}

size_t nd_taskstats_each(const void *buf, size_t len, void (*fn)(const struct nd_exit_notice *n, void *arg), void *arg)
{
    const char *c = buf;
    size_t n = 0;
    while (len >= NLMSG_HDRLEN) {
        const struct nlmsghdr *h = (const struct nlmsghdr *)c;
        if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > len)
            break;
        if (h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) && h->nlmsg_type >= NLMSG_MIN_TYPE) {
            const char *attrs = c + NLMSG_LENGTH(GENL_HDRLEN);
            size_t alen = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
            const struct nlattr *agg = nd_nla_find(attrs, alen, TASKSTATS_TYPE_AGGR_PID);
            struct nd_exit_notice notice;
            if (agg && nd_taskstats_aggr((const char *)agg + NLA_HDRLEN, agg->nla_len - NLA_HDRLEN, -1, &notice)) {
                fn(&notice, arg);
                n++;
            }
        }
        size_t step = NLMSG_ALIGN(h->nlmsg_len);
        if (step >= len)
            break;
        c += step;
        len -= step;
    }
    return n;
}

void nd_exit_listener_each(struct nd_exit_listener *l, void (*fn)(const struct nd_exit_notice *n, void *arg), void *arg)
{
    static char buf[64 * 1024];
    for (int rounds = 0; rounds < 256; rounds++) {
        ssize_t n = recv(l->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == ENOBUFS) /* some notices were dropped: read on */
                continue;
            return;
        }
        nd_taskstats_each(buf, (size_t)n, fn, arg);
    }
}

bool nd_exit_listener_status(struct nd_exit_listener *l, pid_t pid, int wait_ms, int *ws)
{
    if (l->seen && l->seen_pid == pid) {
        *ws = l->seen_ws;
        return true;
    }
    /* A notice is a few hundred bytes; a taskstats struct of a future
     * kernel is bigger, so the buffer leaves room. */
    static char buf[64 * 1024];
    struct pollfd pf = {l->fd, POLLIN, 0};
    while (poll(&pf, 1, wait_ms) > 0) {
        ssize_t n = recv(l->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == ENOBUFS) /* some notices were dropped: keep listening */
                continue;
            break;
        }
        int got;
        if (nd_taskstats_parse(buf, (size_t)n, pid, &got)) {
            l->seen = true;
            l->seen_pid = pid;
            l->seen_ws = got;
            *ws = got;
            return true;
        }
        wait_ms = 0; /* the first wait only: then drain what is there */
    }
    return false;
}

void nd_exit_listener_free(struct nd_exit_listener *l)
{
    if (!l)
        return;
    close(l->fd);
    free(l);
}
