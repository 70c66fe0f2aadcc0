/* The versions of the GPU toolkits installed beside the driver, read through
 * the root prefix: the CUDA toolkit (/usr/local/cuda/version.json, or
 * version.txt before CUDA 11.1) and ROCm (/opt/rocm/.info/version). Parsers
 * take buffers so captured files are unit-tested and fuzzed directly. */
#ifndef ND_PROBE_TOOLKIT_VERSION_H
#define ND_PROBE_TOOLKIT_VERSION_H

#include <stddef.h>

/* version.json ("cuda": {"name": "CUDA SDK", "version": "12.4.1"}) or
 * version.txt ("CUDA Version 11.0.228"). Returns 0 with "12.4.1", or -EINVAL. */
int nd_cuda_toolkit_parse(const char *buf, size_t len, char *out, size_t size);
/* ROCm's .info/version ("6.1.2-119" -> "6.1.2"). Returns 0 or -EINVAL. */
int nd_rocm_version_parse(const char *buf, size_t len, char *out, size_t size);
/* Probes through the root; out "" (and file "") when not installed. */
void nd_cuda_toolkit_probe(char *out, size_t size, char *file, size_t file_size);
void nd_rocm_probe(char *out, size_t size);

#endif
