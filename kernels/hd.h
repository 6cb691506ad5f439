// Marks functions that are compiled both for the host (g++) and for the device (nvcc or hipcc).
// Headers that use it must stay free of host-only calls so the same lines run in both places.
#ifndef SSIMD_KERNELS_HD_H_
#define SSIMD_KERNELS_HD_H_

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SSIMD_HD __host__ __device__
#else
#define SSIMD_HD
#endif

#endif  // SSIMD_KERNELS_HD_H_
