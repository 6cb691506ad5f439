// What the kernel tests that run on a device (vmaf_adm/vif/motion_device_test.cc) share: whether
// a device can be used and why not, HIP errors as absl::Status, a stream that uploads, fills, reads
// back and times launches, device buffers grown and reused from pair to pair as a GPU slot reuses
// its own, and the reference set's frames as luma views. The tests hold the kernels to the CPU bit
// for bit, so each keeps its own comparisons; only the plumbing around them lives here.
// GPU builds only: a CPU build compiles this header and its source empty, as the tests' GPU halves.
#ifndef SSIMD_ENGINE_GPU_DEVICE_TEST_SUPPORT_H_
#define SSIMD_ENGINE_GPU_DEVICE_TEST_SUPPORT_H_

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)
// What the tests key their device halves on, so that the build's test lives in one place.
#define SSIMD_DEVICE_TEST_GPU_BUILD 1

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/picture.h"
#include "engine/synthetic_picture.h"
#include "kernels/hip_portability.h"
#include "tests/reference/reference_set.h"

namespace ssimd::device_test {

// Empty where a device can be used; otherwise why not, worded for GTEST_SKIP.
std::string WhyNoDevice();

// OK for hipSuccess; otherwise INTERNAL naming `what` and the runtime's description.
absl::Status HipStatus(hipError_t error, const char* what);

// Device memory reused from call to call and grown (never shrunk) to the largest size asked for,
// so that a kernel meets stale data from an earlier, larger pair as it would in a GPU slot.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  // At least `bytes` of capacity; the contents are lost when it grows. Zero bytes allocate nothing
  // (data() stays null until something larger is asked for).
  absl::Status Reserve(size_t bytes);

  void* data() const { return data_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t capacity() const { return capacity_; }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

// A non-blocking stream (as the GPU frame uses) with two events for timing. Every call that
// hands data to or from the host waits for the stream, so host buffers may be reused at once.
class TestStream {
 public:
  TestStream() = default;
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
  ~TestStream();

  absl::Status Init();
  hipStream_t get() const { return stream_; }

  absl::Status Synchronize();

  // `view`'s rows packed (a stride of exactly one row, as the kernels take planes) into `to`,
  // which grows to hold them.
  absl::Status UploadPacked(const LumaView& view, DeviceBuffer& to);

  // The first `bytes` of `device` set to `junk`: a launch that forgets to zero what it accumulates,
  // or reads what it never wrote, then shows in its results.
  absl::Status FillWithJunk(void* device, size_t bytes, uint8_t junk);

  absl::Status CopyToHost(void* host, const void* device, size_t bytes);

  // Mean device time of one `launch`, in microseconds, over `runs` launches back to back after
  // `warm_up` untimed ones.
  absl::StatusOr<double> MicrosecondsPerLaunch(
      const std::function<hipError_t(hipStream_t)>& launch, int runs, int warm_up = 3);

 private:
  hipStream_t stream_ = nullptr;
  hipEvent_t start_ = nullptr;
  hipEvent_t stop_ = nullptr;
};

// A plane of every sample f(x, y), for the extremes and patterns the synthetic planes lack.
template <typename F>
SyntheticPlane PatternPlane(int width, int height, int bit_depth, F f) {
  SyntheticPlane p(width, height, bit_depth);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) p.Set(x, y, f(x, y));
  }
  return p;
}

// Prints the device time per frame of `metric` at common sizes (1080p at 8 and 10 bits, 4K at 8
// and 16): a record, not a limit, as the machines running the tests differ. `time` makes and
// uploads a pair at the size given and returns its mean microseconds per frame; an error fails
// the test and ends the record.
void PrintDeviceTimePerFrame(
    const char* metric,
    const std::function<absl::StatusOr<double>(int width, int height, int bit_depth)>& time);

// The luma of a pair's frames as the vmaf tool reads them (what libvmaf's values were computed
// from), up to the end of the shorter clip, with the storage the views point into.
struct ToolLuma {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<LumaView> reference;
  // Empty where the pair's distorted clip is its reference clip (read once).
  std::vector<LumaView> distorted;

  // The distorted frames, which are the reference frames where the pair has one clip.
  const std::vector<LumaView>& distorted_or_reference() const {
    return distorted.empty() ? reference : distorted;
  }
};
absl::StatusOr<ToolLuma> ReadLumaAsVmafTool(const testing::ReferencePair& pair);

}  // namespace ssimd::device_test

// Skips the running test, saying why, where no device can be used.
#define SSIMD_SKIP_WITHOUT_DEVICE()                                                       \
  if (const std::string ssimd_why_no_device_ = ::ssimd::device_test::WhyNoDevice();      \
      !ssimd_why_no_device_.empty())                                                      \
  GTEST_SKIP() << ssimd_why_no_device_

// Returns from the enclosing function (absl::Status or absl::StatusOr<T>) when a HIP call fails.
#define SSIMD_TEST_HIP_RETURN_IF_ERROR(expr, what)                                            \
  do {                                                                                        \
    if (::absl::Status ssimd_hip_status_ = ::ssimd::device_test::HipStatus((expr), (what));    \
        !ssimd_hip_status_.ok()) {                                                            \
      return ssimd_hip_status_;                                                               \
    }                                                                                         \
  } while (false)

#endif  // SSIMD_GPU_NVIDIA || SSIMD_GPU_ROCM

// What the tests' CPU halves skip with: the build has no device code to test.
#define SSIMD_NO_GPU_BUILD_REASON \
  "no GPU to test: built without a GPU configuration (--config=nvidia or rocm)"

#endif  // SSIMD_ENGINE_GPU_DEVICE_TEST_SUPPORT_H_
