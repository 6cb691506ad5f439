#include "engine/media/nvdec_caps.h"

#include <string>

#include "absl/strings/str_format.h"

// The loader reports failures through this macro; the probe reports them itself, once.
#define FFNV_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#define FFNV_DEBUG_LOG_FUNC(logctx, msg, ...) ((void)(logctx))
#include <ffnvcodec/dynlink_loader.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
}

namespace ssimd {
namespace {

struct NvdecCodec {
  const char* name;  // FFmpeg's decoder
  cudaVideoCodec codec;
};

// The decoders whose `cuda` hwaccel libavcodec 5.1 has, with NVDEC's codec for each.
constexpr NvdecCodec kCodecs[] = {
    {"h264", cudaVideoCodec_H264},       {"hevc", cudaVideoCodec_HEVC},
    {"vp9", cudaVideoCodec_VP9},         {"av1", cudaVideoCodec_AV1},
    {"vp8", cudaVideoCodec_VP8},         {"mpeg1video", cudaVideoCodec_MPEG1},
    {"mpeg2video", cudaVideoCodec_MPEG2}, {"mpeg4", cudaVideoCodec_MPEG4},
    {"vc1", cudaVideoCodec_VC1},         {"wmv3", cudaVideoCodec_VC1},
    {"mjpeg", cudaVideoCodec_JPEG},
};

struct Chroma {
  int layout;
  cudaVideoChromaFormat format;
};
constexpr Chroma kChromas[] = {{420, cudaVideoChromaFormat_420},
                               {422, cudaVideoChromaFormat_422},
                               {444, cudaVideoChromaFormat_444}};
constexpr int kDepths[] = {8, 10, 12};

// The loaded driver libraries, freed on every path out of the probe.
struct DriverFunctions {
  CudaFunctions* cuda = nullptr;
  CuvidFunctions* cuvid = nullptr;
  ~DriverFunctions() {
    cuvid_free_functions(&cuvid);
    cuda_free_functions(&cuda);
  }
};

DecodeCaps Unknown(std::string reason) {
  DecodeCaps caps;
  caps.unknown_reason = std::move(reason);
  return caps;
}

}  // namespace

DecodeCaps ProbeNvdecCaps(AVBufferRef* cuda_device) {
  if (cuda_device == nullptr) return Unknown("no CUDA device context");
  const auto* device = reinterpret_cast<const AVHWDeviceContext*>(cuda_device->data);
  if (device->type != AV_HWDEVICE_TYPE_CUDA) return Unknown("not a CUDA device context");
  const auto* cuda = static_cast<const AVCUDADeviceContext*>(device->hwctx);

  DriverFunctions driver;
  if (cuda_load_functions(&driver.cuda, nullptr) != 0) {
    return Unknown("the NVIDIA driver's libcuda.so.1 could not be loaded");
  }
  if (cuvid_load_functions(&driver.cuvid, nullptr) != 0) {
    return Unknown("the NVIDIA driver's libnvcuvid.so.1 could not be loaded");
  }
  if (driver.cuda->cuCtxPushCurrent(cuda->cuda_ctx) != CUDA_SUCCESS) {
    return Unknown("the decoding device's CUDA context could not be made current");
  }
  DecodeCaps caps;
  int queries_failed = 0;
  int queries = 0;
  CUresult last_error = CUDA_SUCCESS;
  for (const NvdecCodec& codec : kCodecs) {
    for (const Chroma& chroma : kChromas) {
      for (const int depth : kDepths) {
        CUVIDDECODECAPS query = {};
        query.eCodecType = codec.codec;
        query.eChromaFormat = chroma.format;
        query.nBitDepthMinus8 = static_cast<unsigned>(depth - 8);
        ++queries;
        // A driver that does not know a codec answers with an error rather than "unsupported".
        const CUresult rc = driver.cuvid->cuvidGetDecoderCaps(&query);
        if (rc != CUDA_SUCCESS) {
          ++queries_failed;
          last_error = rc;
          continue;
        }
        if (query.bIsSupported == 0) continue;
        DecodeProfileCaps profile;
        profile.codec = codec.name;
        profile.chroma = chroma.layout;
        profile.bit_depth = depth;
        profile.max_width = static_cast<int>(query.nMaxWidth);
        profile.max_height = static_cast<int>(query.nMaxHeight);
        profile.min_width = query.nMinWidth;
        profile.min_height = query.nMinHeight;
        profile.max_macroblocks = query.nMaxMBCount;
        profile.engines = query.nNumNVDECs;
        caps.Merge(profile);
      }
    }
  }
  CUcontext popped = nullptr;
  driver.cuda->cuCtxPopCurrent(&popped);
  if (queries_failed == queries) {
    return Unknown(absl::StrFormat("cuvidGetDecoderCaps failed for every codec (CUDA error %d)",
                                   static_cast<int>(last_error)));
  }
  return caps;
}

}  // namespace ssimd
