#include "kernels/hip_host_emulation.h"

#include <ucontext.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace ssimd_hip_emulation {
namespace {

constexpr size_t kFiberStack = 64 * 1024;

struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack;
  Coordinates coordinates;
  bool done = false;
};

// Fibers run on the thread that launched them. __shared__ arrays are static locals, shared by
// every launch of a kernel: one launch at a time in the process (tests launch from one thread).
thread_local ucontext_t scheduler;
thread_local Fiber* running = nullptr;
thread_local const std::function<void()>* body = nullptr;

void RunFiber() {
  (*body)();
  running->done = true;
  // Back to the scheduler through uc_link.
}

}  // namespace

const Coordinates& Current() { return running->coordinates; }

void SyncThreads() { swapcontext(&running->context, &scheduler); }

void Launch(const dim3& grid, const dim3& block, const std::function<void()>& thread) {
  const size_t threads = static_cast<size_t>(block.x) * block.y * block.z;
  std::vector<Fiber> fibers(threads);
  for (Fiber& fiber : fibers) fiber.stack.reset(new char[kFiberStack]);
  body = &thread;
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        size_t t = 0;
        for (unsigned tz = 0; tz < block.z; ++tz) {
          for (unsigned ty = 0; ty < block.y; ++ty) {
            for (unsigned tx = 0; tx < block.x; ++tx, ++t) {
              Fiber& fiber = fibers[t];
              fiber.coordinates = {dim3(tx, ty, tz), dim3(bx, by, bz), block, grid};
              fiber.done = false;
              getcontext(&fiber.context);
              fiber.context.uc_stack.ss_sp = fiber.stack.get();
              fiber.context.uc_stack.ss_size = kFiberStack;
              fiber.context.uc_link = &scheduler;
              makecontext(&fiber.context, &RunFiber, 0);
            }
          }
        }
        // Every fiber runs to its next barrier (or its end), then the next one: a barrier is
        // passed once all have reached it.
        for (bool pending = true; pending;) {
          pending = false;
          for (Fiber& fiber : fibers) {
            if (fiber.done) continue;
            running = &fiber;
            swapcontext(&scheduler, &fiber.context);
            pending = pending || !fiber.done;
          }
        }
      }
    }
  }
  running = nullptr;
  body = nullptr;
}

}  // namespace ssimd_hip_emulation

struct EmulatedStream {};
struct EmulatedEvent {};

hipError_t hipMalloc(void** pointer, size_t bytes) {
  *pointer = std::malloc(bytes > 0 ? bytes : 1);
  return *pointer != nullptr ? hipSuccess : hipErrorOutOfMemory;
}
hipError_t hipHostMalloc(void** pointer, size_t bytes, unsigned) {
  return hipMalloc(pointer, bytes);
}
hipError_t hipFree(void* pointer) {
  std::free(pointer);
  return hipSuccess;
}
hipError_t hipHostFree(void* pointer) { return hipFree(pointer); }
hipError_t hipMemcpy(void* to, const void* from, size_t bytes, hipMemcpyKind) {
  if (bytes > 0) std::memmove(to, from, bytes);
  return hipSuccess;
}
hipError_t hipMemcpyAsync(void* to, const void* from, size_t bytes, hipMemcpyKind kind,
                          hipStream_t) {
  return hipMemcpy(to, from, bytes, kind);
}
hipError_t hipMemcpy2DAsync(void* to, size_t to_pitch, const void* from, size_t from_pitch,
                            size_t row_bytes, size_t rows, hipMemcpyKind, hipStream_t) {
  for (size_t y = 0; y < rows && row_bytes > 0; ++y) {
    std::memmove(static_cast<uint8_t*>(to) + y * to_pitch,
                 static_cast<const uint8_t*>(from) + y * from_pitch, row_bytes);
  }
  return hipSuccess;
}
hipError_t hipMemset(void* to, int value, size_t bytes) {
  if (bytes > 0) std::memset(to, value, bytes);
  return hipSuccess;
}
hipError_t hipMemsetAsync(void* to, int value, size_t bytes, hipStream_t) {
  return hipMemset(to, value, bytes);
}
hipError_t hipSetDevice(int) { return hipSuccess; }
hipError_t hipGetDevice(int* device) {
  *device = 0;
  return hipSuccess;
}
hipError_t hipGetDeviceCount(int* count) {
  *count = 1;
  return hipSuccess;
}
hipError_t hipDeviceSynchronize() { return hipSuccess; }
hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned) {
  *stream = new EmulatedStream;
  return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t stream) {
  delete stream;
  return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
hipError_t hipEventCreate(hipEvent_t* event) {
  *event = new EmulatedEvent;
  return hipSuccess;
}
hipError_t hipEventDestroy(hipEvent_t event) {
  delete event;
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t, hipStream_t) { return hipSuccess; }
hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
hipError_t hipEventElapsedTime(float* ms, hipEvent_t, hipEvent_t) {
  *ms = 0;
  return hipSuccess;
}
hipError_t hipGetLastError() { return hipSuccess; }
hipError_t hipPeekAtLastError() { return hipSuccess; }
const char* hipGetErrorName(hipError_t error) {
  return error == hipSuccess ? "hipSuccess" : "hipErrorEmulated";
}
const char* hipGetErrorString(hipError_t error) {
  return error == hipSuccess ? "no error" : "an error of the host emulation";
}
