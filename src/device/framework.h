/* The runtime and framework libraries a process can map, as bits, and the
 * table that names them: which base name in /proc/PID/maps means which
 * bit. A vendor descriptor (device.h) says which bits mean "this process can
 * use the device", so code above device/ never names a library itself. */
#ifndef ND_DEVICE_FRAMEWORK_H
#define ND_DEVICE_FRAMEWORK_H

#include <stddef.h>

/* Frameworks and runtimes seen in /proc/PID/maps (bit mask). */
enum nd_framework {
    ND_FW_TORCH = 1u << 0,      /* libtorch*.so or libtorch_python */
    ND_FW_TORCH_CPU = 1u << 1,  /* libtorch_cpu.so */
    ND_FW_TORCH_NPU = 1u << 2,  /* libtorch_npu.so */
    ND_FW_TORCH_CUDA = 1u << 3, /* libtorch_cuda.so */
    ND_FW_ASCENDCL = 1u << 4,   /* libascendcl.so */
    ND_FW_HCCL = 1u << 5,       /* libhccl.so */
    ND_FW_CUDA = 1u << 6,       /* libcuda.so (driver API) */
    ND_FW_CUDART = 1u << 7,     /* libcudart.so */
    ND_FW_NCCL = 1u << 8,       /* libnccl.so */
    ND_FW_PYTHON = 1u << 9,     /* libpython or a python executable */
    ND_FW_TORCH_HIP = 1u << 10, /* libtorch_hip.so (torch built for ROCm) */
    ND_FW_HIP = 1u << 11,       /* libamdhip64.so (the HIP runtime) */
    ND_FW_RCCL = 1u << 12,      /* librccl.so */
};

/* The highest bit, for loops over every bit. */
#define ND_FW_LAST ND_FW_RCCL
/* Every bit but the interpreter: an ML framework or a device runtime. */
#define ND_FW_ML (((ND_FW_LAST << 1) - 1u) & ~(unsigned)ND_FW_PYTHON)

/* The bits one mapped file's base name stands for (len bytes, not
 * terminated): "libtorch_cuda.so" gives torch and torch_cuda; 0 for files
 * that are none of ours. */
unsigned nd_framework_of_file(const char *base, size_t len);
/* The name of one ND_FW_* bit ("torch_npu"), or NULL for anything else. */
const char *nd_framework_name(unsigned bit);

#endif
