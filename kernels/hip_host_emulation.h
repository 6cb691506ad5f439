// The HIP subset ssimd's kernels and GPU backend use, run on the host, for tests without a GPU:
// a kernel launch runs every block one after the other and every thread of a block as a fiber,
// switching fibers at __syncthreads(), so that shared memory and barriers behave as on a device;
// memory is host memory and every asynchronous call completes at once. It checks that the kernels'
// indexing, pitches and launch geometry give the host model's results; it says nothing about
// speed, races between blocks, or device arithmetic (the arithmetic headers are shared anyway).
// Selected by hip_portability.h where SSIMD_GPU_HOST_EMULATION is defined (test targets only).
#ifndef SSIMD_KERNELS_HIP_HOST_EMULATION_H_
#define SSIMD_KERNELS_HIP_HOST_EMULATION_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT
};

namespace ssimd_hip_emulation {

struct Coordinates {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
};
// The running fiber's coordinates.
const Coordinates& Current();
// Runs `thread` once per thread of every block of `grid` x `block`, fibers switched at barriers.
void Launch(const dim3& grid, const dim3& block, const std::function<void()>& thread);
void SyncThreads();

}  // namespace ssimd_hip_emulation

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __syncthreads() ::ssimd_hip_emulation::SyncThreads()
#define threadIdx (::ssimd_hip_emulation::Current().thread_idx)
#define blockIdx (::ssimd_hip_emulation::Current().block_idx)
#define blockDim (::ssimd_hip_emulation::Current().block_dim)
#define gridDim (::ssimd_hip_emulation::Current().grid_dim)

using std::max;
using std::min;

inline unsigned long long atomicAdd(unsigned long long* address,  // NOLINT(runtime/int)
                                    unsigned long long value) {   // NOLINT(runtime/int)
  const unsigned long long old = *address;  // NOLINT(runtime/int): fibers never run at once
  *address = old + value;
  return old;
}

enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue,
  hipErrorOutOfMemory,
  hipErrorMemoryAllocation = hipErrorOutOfMemory,
  hipErrorNotReady,
  hipErrorNoDevice,
  hipErrorInsufficientDriver,
  hipErrorIllegalAddress,
  hipErrorLaunchFailure,
};
enum hipMemcpyKind { hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice };
using hipStream_t = struct EmulatedStream*;
using hipEvent_t = struct EmulatedEvent*;
inline constexpr unsigned hipStreamNonBlocking = 1;
inline constexpr unsigned hipHostMallocDefault = 0;

hipError_t hipMalloc(void** pointer, size_t bytes);
hipError_t hipHostMalloc(void** pointer, size_t bytes, unsigned flags);
hipError_t hipFree(void* pointer);
hipError_t hipHostFree(void* pointer);
hipError_t hipMemcpy(void* to, const void* from, size_t bytes, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void* to, const void* from, size_t bytes, hipMemcpyKind kind,
                          hipStream_t stream);
hipError_t hipMemcpy2DAsync(void* to, size_t to_pitch, const void* from, size_t from_pitch,
                            size_t row_bytes, size_t rows, hipMemcpyKind kind, hipStream_t stream);
hipError_t hipMemset(void* to, int value, size_t bytes);
hipError_t hipMemsetAsync(void* to, int value, size_t bytes, hipStream_t stream);
hipError_t hipSetDevice(int device);
hipError_t hipGetDevice(int* device);
hipError_t hipGetDeviceCount(int* count);
hipError_t hipDeviceSynchronize();
hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned flags);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipEventCreate(hipEvent_t* event);
hipError_t hipEventDestroy(hipEvent_t event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventElapsedTime(float* ms, hipEvent_t from, hipEvent_t to);
hipError_t hipGetLastError();
hipError_t hipPeekAtLastError();
const char* hipGetErrorName(hipError_t error);
const char* hipGetErrorString(hipError_t error);

// Arguments are copied, as a launch copies them to the device.
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...)          \
  ::ssimd_hip_emulation::Launch(dim3(grid), dim3(block),                      \
                                [=] { kernel(__VA_ARGS__); })

#endif  // SSIMD_KERNELS_HIP_HOST_EMULATION_H_
