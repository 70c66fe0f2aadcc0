/* The snapshot document: what `npu-doctor snapshot` writes and
 * `npu-doctor diff` reads. One JSON object:
 *   {"schema": "npu-doctor/2", "command": "snapshot", "version": "0.x",
 *    "snapshot_version": 1,
 *    "findings": [...], "facts": {...}, "identity": {...}, "devices": [...],
 *    "device_layer": [...], "device_files": [...], "python": {...},
 *    "limits": {...}, "env": {...}}
 * Here: the rank identity from the launcher's variables
 * (snapshot_identity.c), the redacted environment and the text summary
 * (snapshot_doc.c), and reading documents back with schema checks
 * (snapshot_read.c). The gathered parts come from probes: check's facts
 * (probe/checkup.h), devices (snapshot/snapshot_devices.h), limits and device
 * files (snapshot/snapshot_host.h), Python packages (probe/python_packages.h). */
#ifndef ND_SNAPSHOT_SNAPSHOT_H
#define ND_SNAPSHOT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "core/error.h"
#include "core/environ.h"

/* The document layout version, bumped when a key changes meaning. A reader
 * refuses a newer one (and a newer "schema") with a message naming the
 * version it understands. */
#define ND_SNAPSHOT_VERSION 1
/* Larger inputs are refused: a real snapshot is tens of KiB. */
#define ND_SNAPSHOT_MAX_BYTES (64u * 1024 * 1024)

/* --- identity (snapshot_identity.c) --- */

/* {"hostname", "node_name", "time" (UTC, ISO 8601), "torchrun": {RANK,
 * LOCAL_RANK, WORLD_SIZE}, "slurm": {SLURM_PROCID, SLURM_NODEID,
 * SLURM_JOB_ID}, "mpi": {OMPI_COMM_WORLD_RANK, PMI_RANK}, "kubernetes":
 * {"pod", "namespace", "node"}, "rank"}; each launcher group only when one
 * of its variables is set. Pure: everything comes from the arguments. */
json_t *nd_snapshot_identity(const struct nd_environ *env, const char *hostname, time_t now);
/* The node's name: SLURMD_NODENAME, else the Kubernetes node from the
 * downward API (NODE_NAME, MY_NODE_NAME, K8S_NODE_NAME), else the hostname
 * up to its first dot. */
void nd_snapshot_node_name(const struct nd_environ *env, const char *hostname, char *out, size_t size);
/* The global rank from RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK or
 * PMIX_RANK (first set, decimal). False when none is set or valid. */
bool nd_snapshot_rank(const struct nd_environ *env, long *rank);
/* Expands -o patterns: %n node name, %h full hostname, %r rank ("0" when no
 * launcher set one), %j Slurm job id ("nojob"), %p pid, %% a percent sign.
 * Expanded values are made file-name safe ('/' becomes '_'). Returns 0, or
 * -EINVAL for an unknown or trailing '%' (err names it). */
int nd_snapshot_expand_output(const char *pattern, const struct nd_environ *env, const char *hostname, char **out,
                              struct nd_error *err);

/* --- document parts (snapshot_doc.c) --- */

/* The environment as {"NAME": "value"} with every value redacted
 * (nd_redact_value); *nredacted (when non-NULL) counts the values changed. */
json_t *nd_snapshot_env_json(const struct nd_environ *env, size_t *nredacted);
/* The short human summary (the text form of `snapshot`). */
void nd_snapshot_print_text(const json_t *doc, FILE *fp, bool color);

/* --- reading (snapshot_read.c) --- */

/* Parses and checks a snapshot held in memory; name is used in messages.
 * Checks: a JSON object; "schema" is npu-doctor/1 or /2 (a newer one is
 * refused with "this npu-doctor understands npu-doctor/2"); "command" is
 * "snapshot"; "snapshot_version" is at most ND_SNAPSHOT_VERSION; the
 * sections present have the right types. Returns 0 with *doc (the caller
 * decrefs), -EINVAL for bad JSON or a non-snapshot, -EPROTONOSUPPORT for a
 * newer schema or version. A schema 1 document comes back upgraded
 * (nd_snapshot_upgrade). */
int nd_snapshot_parse(const char *buf, size_t len, const char *name, json_t **doc, struct nd_error *err);
/* Reads and checks a file: additionally -ENOENT/-EACCES/-EISDIR/-EFBIG for
 * missing, unreadable, directory or oversized input. */
int nd_snapshot_load(const char *path, json_t **doc, struct nd_error *err);

/* --- older documents (snapshot_upgrade.c) --- */

/* Rewrites a document of an older schema (the number N of "npu-doctor/N")
 * in place into the current names, types and units: tool_version becomes
 * version, a device's "sample" values move up (utilization becomes
 * utilization_ratio), health and the query status become words, cpu_quota
 * and the HCCL timeouts get their unit suffix, counts are *_count. A current one is left as is. */
void nd_snapshot_upgrade(json_t *doc, long schema);

#endif
