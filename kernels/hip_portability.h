// The HIP API that ssimd uses, on AMD (real HIP headers) and on NVIDIA (mapped onto CUDA).
// HIP's own NVIDIA headers in Debian (5.2) do not build against CUDA 13, so under nvcc, or in host
// code of an NVIDIA build, this header maps the hip* names used by ssimd onto their CUDA twins.
// Never include <hip/...> directly: include this header.
#ifndef SSIMD_KERNELS_HIP_PORTABILITY_H_
#define SSIMD_KERNELS_HIP_PORTABILITY_H_

#if defined(SSIMD_GPU_HOST_EMULATION)
// Tests without a GPU: kernels and the backend's device calls run on the host.
#include "kernels/hip_host_emulation.h"
#elif defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__) || defined(SSIMD_GPU_ROCM)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__) || defined(SSIMD_GPU_NVIDIA)
#include <cuda_runtime.h>
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;
#define hipSuccess cudaSuccess
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorMemoryAllocation cudaErrorMemoryAllocation
#define hipErrorIllegalAddress cudaErrorIllegalAddress
#define hipErrorLaunchFailure cudaErrorLaunchFailure
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMalloc(ptr, size, flags) cudaHostAlloc((ptr), (size), (flags))
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostFree cudaFreeHost
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpy2DAsync cudaMemcpy2DAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemGetInfo cudaMemGetInfo
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceReset cudaDeviceReset
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
  kernel<<<(grid), (block), (shared), (stream)>>>(__VA_ARGS__)
#else
#error "hip_portability.h needs hipcc, nvcc, or SSIMD_GPU_NVIDIA / SSIMD_GPU_ROCM in host code"
#endif

#endif  // SSIMD_KERNELS_HIP_PORTABILITY_H_
