/* What `npu-doctor --version` says about this build: version, git commit,
 * build date, target, and the versions of the libraries linked into it
 * (a release binary carries vectorscan, jansson, inih and zlib inside). */
#ifndef ND_CORE_BUILD_INFO_H
#define ND_CORE_BUILD_INFO_H

#include <stdio.h>

void nd_build_info_print(FILE *fp);

#endif
