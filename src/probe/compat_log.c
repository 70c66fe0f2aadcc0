/* Finds "<name> [version] [is|:|=|==] <version>" in a log line for the names
 * the compatibility tables know. A name counts only at a word start, and a
 * value only when it starts with a digit and has a dot, so "torchvision",
 * "CUDA_VISIBLE_DEVICES=0" and "Driver Version: N/A" give nothing. */
#include "probe/compat_log.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/array.h"

static const char *const nd_logver_names[ND_LOGVER_COUNT] = {
    "torch",      "torch_npu",     "torch's CUDA", "Python",       "CANN",
    "NPU driver", "NVIDIA driver", "driver CUDA",  "CUDA toolkit", "ROCm",
};

const char *nd_logver_name(enum nd_logver_kind k)
{
    return k < ND_LOGVER_COUNT ? nd_logver_names[k] : "?";
}

struct nd_logkey {
    const char *key; /* matched case-insensitively at a word start */
    int kind;        /* -1: the driver, decided by the value */
};

/* Longer keys first: "cuda used to build pytorch" before "cuda version". */
static const struct nd_logkey nd_logkeys[] = {
    {"cuda used to build pytorch", ND_LOGVER_TORCH_CUDA},
    {"cuda runtime version", ND_LOGVER_CUDA_TOOLKIT},
    {"cuda compilation tools, release", ND_LOGVER_CUDA_TOOLKIT},
    {"torch.version.cuda", ND_LOGVER_TORCH_CUDA},
    {"cuda version", ND_LOGVER_DRIVER_CUDA},
    /* Install paths and package names carry the version too: the toolkit's
     * versioned directory, its installer and the HDK driver's installer. */
    {"ascend-toolkit/", ND_LOGVER_CANN},
    {"ascend-cann-toolkit_", ND_LOGVER_CANN},
    {"npu-driver_", ND_LOGVER_NPU_DRIVER},
    /* npu-smi ships with the driver: its banner "npu-smi 24.1.rc2  Version:
     * 24.1.rc2" is the driver release. */
    {"npu-smi", ND_LOGVER_NPU_DRIVER},
    {"torch_npu", ND_LOGVER_TORCH_NPU},
    {"torch-npu", ND_LOGVER_TORCH_NPU},
    {"pytorch", ND_LOGVER_TORCH},
    {"torch", ND_LOGVER_TORCH},
    {"cann", ND_LOGVER_CANN},
    {"python", ND_LOGVER_PYTHON},
    {"rocm", ND_LOGVER_ROCM},
    {"nvidia driver version", -1},
    {"driver version", -1},
};

/* Filler between a name and its value. */
static const char *const nd_fillers[] = {"package", "version", "__version__", "is", "ver", NULL};

static bool nd_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static const char *nd_skip_filler(const char *p, const char *end)
{
    for (int rounds = 0; rounds < 32 && p < end; rounds++) {
        if (*p && strchr(" \t:=.'\"(,-", *p)) {
            p++;
            continue;
        }
        if ((*p == 'v' || *p == 'V') && p + 1 < end && isdigit((unsigned char)p[1]))
            return p + 1;
        bool word = false;
        for (int i = 0; nd_fillers[i] && !word; i++) {
            size_t n = strlen(nd_fillers[i]);
            if ((size_t)(end - p) >= n && strncasecmp(p, nd_fillers[i], n) == 0 && (p + n == end || !nd_word_char(p[n]))) {
                p += n;
                word = true;
            }
        }
        if (!word)
            break;
    }
    return p;
}

/* Copies a version token ("8.0.RC1", "2.1.0+cu121", "535.104.05") at p. */
static bool nd_take_version(const char *p, const char *end, char *out, size_t size)
{
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    size_t n = 0;
    bool dot = false;
    while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '.' || p[n] == '+' || p[n] == '_' ||
                           (p[n] == '-' && p + n + 1 < end && isalnum((unsigned char)p[n + 1]))))
        dot |= p[n++] == '.';
    while (n > 0 && (p[n - 1] == '.' || p[n - 1] == '-'))
        n--;
    if (!dot || n == 0 || n >= size)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

/* The key=value files a shell session cats: the driver's version.info
 * ("Version=24.1.rc1", capital V, a two-digit release; the firmware's
 * "Version=7.1.0.11.220" is not the driver) and the toolkit's
 * ascend_toolkit_install.info ("version=8.0.RC3", lower case). Only at the
 * start of the line, exactly so spelled. */
static int nd_logver_info_line(const char *line, const char *end, struct nd_logver *out)
{
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    int kind;
    if ((size_t)(end - p) > 8 && strncmp(p, "Version=", 8) == 0)
        kind = ND_LOGVER_NPU_DRIVER;
    else if ((size_t)(end - p) > 8 && strncmp(p, "version=", 8) == 0)
        kind = ND_LOGVER_CANN;
    else
        return 0;
    char v[40];
    if (!nd_take_version(p + 8, end, v, sizeof v))
        return 0;
    int major = atoi(v);
    if (kind == ND_LOGVER_NPU_DRIVER ? (major < 20 || major > 99) : (major < 5 || major > 19))
        return 0;
    if (out->found[kind])
        return 0;
    out->found[kind] = true;
    memcpy(out->v[kind], v, sizeof v);
    return 1;
}

int nd_logver_scan(const char *line, size_t len, struct nd_logver *out)
{
    if (!line || !out)
        return 0;
    const char *end = line + len;
    int added = nd_logver_info_line(line, end, out);
    if (added)
        return added;
    for (const char *p = line; p < end; p++) {
        if (p > line && nd_word_char(p[-1]))
            continue;
        for (size_t k = 0; k < ND_ARRAY_SIZE(nd_logkeys); k++) {
            size_t n = strlen(nd_logkeys[k].key);
            if ((size_t)(end - p) < n || strncasecmp(p, nd_logkeys[k].key, n) != 0)
                continue;
            const char *q = p + n;
            /* "torch" must not be torchvision or torch_npu; "rocm" not "rocm-smi".
             * A key that ends in a separator ("ascend-toolkit/") is followed
             * by its value directly. */
            bool open_end = isalnum((unsigned char)nd_logkeys[k].key[n - 1]);
            if (open_end && q < end &&
                (isalnum((unsigned char)*q) || (*q == '_' && nd_logkeys[k].kind != ND_LOGVER_TORCH_NPU)))
                continue;
            if (nd_logkeys[k].kind == ND_LOGVER_TORCH && q + 3 < end && (*q == '_' || *q == '-') &&
                strncasecmp(q + 1, "npu", 3) == 0)
                continue;
            char v[40];
            const char *vp = nd_skip_filler(q, end);
            if (!nd_take_version(vp, end, v, sizeof v))
                break;
            /* An installer name goes on after the version
             * ("..._8.0.RC1_linux-aarch64.run"). */
            if (nd_logkeys[k].key[n - 1] == '_') {
                char *cut = strchr(v, '_');
                if (cut)
                    *cut = '\0';
            }
            int kind = nd_logkeys[k].kind;
            if (kind < 0)
                kind = atoi(v) >= 100 ? ND_LOGVER_NVIDIA_DRIVER : ND_LOGVER_NPU_DRIVER;
            if (!out->found[kind]) {
                out->found[kind] = true;
                memcpy(out->v[kind], v, sizeof v);
                added++;
            }
            p = vp;
            break;
        }
    }
    return added;
}
