/* The --version text (see build_info.h). The commit, date and target come
 * from the build (CMake); library versions are asked of the libraries
 * themselves where they can say, so a static release reports what it holds. */
#include "core/build_info.h"

#include <gnu/libc-version.h>
#include <string.h>
#include <hs/hs.h>
#include <jansson.h>
#include <zlib.h>

#ifndef ND_VERSION
#define ND_VERSION "unknown"
#endif
#ifndef ND_GIT_COMMIT
#define ND_GIT_COMMIT "unknown"
#endif
#ifndef ND_BUILD_DATE
#define ND_BUILD_DATE "unknown"
#endif
#ifndef ND_TARGET
#define ND_TARGET "unknown"
#endif
#ifndef ND_LINKAGE
#define ND_LINKAGE "shared"
#endif

void nd_build_info_print(FILE *fp)
{
    /* hs_version() is "5.4.9 2023-01-01", or ends in a space without a date. */
    const char *hs = hs_version();
    int hslen = (int)strcspn(hs, " ");
    fprintf(fp, "npu-doctor %s\n", ND_VERSION);
    fprintf(fp, "commit %s, built %s for %s\n", ND_GIT_COMMIT, ND_BUILD_DATE, ND_TARGET);
    fprintf(fp, "libraries (%s): vectorscan %.*s, jansson %s, inih (no version), zlib %s; glibc %s at run time\n",
            ND_LINKAGE, hslen, hs, JANSSON_VERSION, zlibVersion(), gnu_get_libc_version());
}
