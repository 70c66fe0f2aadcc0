/* Host facts a snapshot records beside check's: the limits a training job
 * trips over and the accelerator device files present. */
#ifndef ND_SNAPSHOT_SNAPSHOT_HOST_H
#define ND_SNAPSHOT_SNAPSHOT_HOST_H

#include <jansson.h>

/* Host limits a job trips over: {"shm_bytes", "memlock_bytes", "nofile",
 * "nproc", "stack_bytes"}; a limit value is a number or "unlimited", and an
 * unknown one is absent. Live values of this process (not root-prefixed). */
json_t *nd_snapshot_limits_json(void);
/* The accelerator device files present under the root's /dev, sorted:
 * davinci*, davinci_manager, devmm_svm, hisi_hdc, nvidia*, nvidiactl,
 * nvidia-uvm*. */
json_t *nd_snapshot_device_files_json(void);

#endif
