#include "engine/gpu/device_test_support.h"

#if defined(SSIMD_GPU_NVIDIA) || defined(SSIMD_GPU_ROCM)

#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/reference/psnr_replay.h"

namespace ssimd::device_test {

std::string WhyNoDevice() {
  int devices = 0;
  const hipError_t e = hipGetDeviceCount(&devices);
  if (e != hipSuccess) return std::string("no GPU to test: ") + hipGetErrorString(e);
  if (devices == 0) return "no GPU to test: no device visible";
  return "";
}

absl::Status HipStatus(hipError_t error, const char* what) {
  if (error == hipSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrFormat("%s: %s", what, hipGetErrorString(error)));
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) hipFree(data_);
}

absl::Status DeviceBuffer::Reserve(size_t bytes) {
  if (bytes <= capacity_) return absl::OkStatus();
  if (data_ != nullptr) hipFree(data_);
  // Left empty, not dangling, where the allocation fails.
  data_ = nullptr;
  capacity_ = 0;
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipMalloc(&data_, bytes), "hipMalloc");
  capacity_ = bytes;
  return absl::OkStatus();
}

TestStream::~TestStream() {
  if (stream_ != nullptr) hipStreamDestroy(stream_);
  if (start_ != nullptr) hipEventDestroy(start_);
  if (stop_ != nullptr) hipEventDestroy(stop_);
}

absl::Status TestStream::Init() {
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking),
                                 "hipStreamCreateWithFlags");
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipEventCreate(&start_), "hipEventCreate");
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipEventCreate(&stop_), "hipEventCreate");
  return absl::OkStatus();
}

absl::Status TestStream::Synchronize() {
  return HipStatus(hipStreamSynchronize(stream_), "hipStreamSynchronize");
}

absl::Status TestStream::UploadPacked(const LumaView& view, DeviceBuffer& to) {
  const size_t row_bytes =
      static_cast<size_t>(view.width) * static_cast<size_t>(BytesPerSample(view.bit_depth));
  const size_t bytes = row_bytes * static_cast<size_t>(view.height);
  if (absl::Status s = to.Reserve(bytes); !s.ok()) return s;
  std::vector<uint8_t> packed(bytes);
  for (int y = 0; y < view.height; ++y) {
    std::memcpy(packed.data() + static_cast<size_t>(y) * row_bytes,
                view.data + static_cast<size_t>(y) * view.stride_bytes, row_bytes);
  }
  // On this stream, which does not wait for the legacy default stream that a plain hipMemcpy
  // uses; waited for before `packed` goes.
  SSIMD_TEST_HIP_RETURN_IF_ERROR(
      hipMemcpyAsync(to.data(), packed.data(), bytes, hipMemcpyHostToDevice, stream_),
      "hipMemcpyAsync to device");
  return Synchronize();
}

absl::Status TestStream::FillWithJunk(void* device, size_t bytes, uint8_t junk) {
  // On this stream, for the same reason: a plain hipMemset could land after the launch.
  return HipStatus(hipMemsetAsync(device, junk, bytes, stream_), "hipMemsetAsync");
}

absl::Status TestStream::CopyToHost(void* host, const void* device, size_t bytes) {
  SSIMD_TEST_HIP_RETURN_IF_ERROR(
      hipMemcpyAsync(host, device, bytes, hipMemcpyDeviceToHost, stream_),
      "hipMemcpyAsync from device");
  return Synchronize();
}

absl::StatusOr<double> TestStream::MicrosecondsPerLaunch(
    const std::function<hipError_t(hipStream_t)>& launch, int runs, int warm_up) {
  for (int i = 0; i < warm_up; ++i) SSIMD_TEST_HIP_RETURN_IF_ERROR(launch(stream_), "launch");
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipEventRecord(start_, stream_), "hipEventRecord");
  for (int i = 0; i < runs; ++i) SSIMD_TEST_HIP_RETURN_IF_ERROR(launch(stream_), "launch");
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipEventRecord(stop_, stream_), "hipEventRecord");
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipEventSynchronize(stop_), "hipEventSynchronize");
  float ms = 0;
  SSIMD_TEST_HIP_RETURN_IF_ERROR(hipEventElapsedTime(&ms, start_, stop_), "elapsed");
  return 1000.0 * ms / runs;
}

void PrintDeviceTimePerFrame(
    const char* metric,
    const std::function<absl::StatusOr<double>(int width, int height, int bit_depth)>& time) {
  struct Size {
    int width, height, bit_depth;
  };
  for (const Size& s : {Size{1920, 1080, 8}, Size{1920, 1080, 10}, Size{3840, 2160, 8},
                        Size{3840, 2160, 16}}) {
    const absl::StatusOr<double> us = time(s.width, s.height, s.bit_depth);
    ASSERT_TRUE(us.ok()) << us.status();
    std::printf("%s on the device: %dx%d %d-bit, %.1f us per frame\n", metric, s.width, s.height,
                s.bit_depth, *us);
  }
}

absl::StatusOr<ToolLuma> ReadLumaAsVmafTool(const testing::ReferencePair& pair) {
  absl::StatusOr<testing::ToolPair> tool = testing::ReadPairAsVmafTool(pair);
  if (!tool.ok()) return tool.status();
  ToolLuma out;
  for (size_t f = 0; f < tool->frames(); ++f) {
    out.reference.push_back(tool->reference.frames[f][0]);
    if (tool->distorted_clip) out.distorted.push_back(tool->distorted_clip->frames[f][0]);
  }
  // The views point into the ToolFrames' storage, which moving keeps in place.
  out.storage.push_back(std::move(tool->reference.storage));
  if (tool->distorted_clip) out.storage.push_back(std::move(tool->distorted_clip->storage));
  return out;
}

}  // namespace ssimd::device_test

#endif  // SSIMD_GPU_NVIDIA || SSIMD_GPU_ROCM
