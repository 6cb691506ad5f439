// Settings of the scoring service that every RPC sees (set from flags in main, or by tests).
#ifndef SSIMD_SERVER_SERVICE_OPTIONS_H_
#define SSIMD_SERVER_SERVICE_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "engine/dispatcher.h"
#include "engine/picture.h"
#include "engine/vmaf/model_registry.h"

namespace ssimd {

// Where a rendition's upscale to its source's size runs (docs/adr/0080).
enum class ScorerUpscale {
  kAuto,    // with the scoring backend when that is a GPU and a plan reproduces libswscale
  kNever,   // always libswscale, on the decoding threads
  kAlways,  // with the scoring backend wherever a plan reproduces libswscale, also on the CPU
            // (the plan's host model; slower than libswscale, for checks and diagnostics)
};

// Fits an 8K (8192x4320) 16-bit luma pair, 135 MiB, with room for the message framing.
inline constexpr int64_t kDefaultMaxMessageBytes = int64_t{160} << 20;
// The decoded-picture budget where the flags leave it to the server and nothing says how much
// memory there is (ServerFlagsFromCommandLine derives it from the memory limit instead).
inline constexpr int64_t kDefaultDecodedMemoryBudget = int64_t{4} << 30;

struct ServiceOptions {
  // ScoreClip and ScoreFiles streams open at once; more get RESOURCE_EXHAUSTED.
  int max_concurrent_streams = 64;
  // Frames of one stream read but not yet answered. The stream is not read further until one is
  // answered, so a fast sender is slowed down by HTTP/2 flow control instead of filling memory.
  int max_frames_in_flight = 4;
  // ScorePair calls being scored or queued at once; more get RESOURCE_EXHAUSTED.
  int max_pending_pairs = 64;
  // Largest request message accepted (gRPC refuses larger ones with RESOURCE_EXHAUSTED).
  int64_t max_message_bytes = kDefaultMaxMessageBytes;
  // A stream whose client neither sends a message nor takes a result for this long is ended with
  // DEADLINE_EXCEEDED, freeing its slot. Zero: never.
  absl::Duration stream_idle_timeout = absl::Minutes(1);
  // Directory ScoreFiles may read from; empty disables ScoreFiles.
  std::string files_root;
  // The server's policy: kAuto serves requests as they ask; kGpu turns kAuto requests into
  // GPU-only ones (no CPU fallback); kCpu serves everything on the CPU.
  BackendPreference backend_policy = BackendPreference::kAuto;
  ScorerUpscale scorer_upscale = ScorerUpscale::kAuto;
  // Hardware decoding of encoded files (docs/adr/0081): "" (off), "cuda" (NVDEC) or "vaapi".
  std::string hw_decode_api;
  std::string hw_decode_device;  // "" for the default device
  int hw_decode_sessions = 16;   // decoder sessions open at once on the device
  // Decoders for one encoded file at once, each decoding the next free segment between split
  // points when done with its last (engine/media/segmented_decoding.h); 1: one decoder per file.
  int decoders_per_file = 1;
  // Pictures NVDEC decodes for the GPU scorer stay in device memory (docs/adr/0083); false
  // brings every picture to the host first.
  bool decoded_on_device = true;
  // Largest picture an input of ScoreFiles or ScoreLadder may have, in pixels: checked on the
  // size the file declares before anything is decoded (docs/adr/0084).
  int64_t max_picture_pixels = kDefaultMaxPicturePixels;
  // Bytes of decoded and scaled pictures all calls' inputs may hold at once; each input reserves
  // its share before its first frame is decoded and gives it back when closed.
  int64_t decoded_memory_budget_bytes = kDefaultDecodedMemoryBudget;
  // How long an input waits for its share while other calls hold the budget; then
  // RESOURCE_EXHAUSTED.
  absl::Duration decoded_memory_wait = absl::Seconds(30);
  // Percentiles reported in a clip summary when the request names none.
  std::vector<double> default_percentiles = {1, 5, 50, 95, 99};
  // The VMAF models requests may name (--vmaf_model_dir, read when the server starts); none by
  // default, and vmaf is then refused with a message saying how to give some.
  std::shared_ptr<const VmafModelRegistry> vmaf_models = std::make_shared<VmafModelRegistry>();
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_SERVICE_OPTIONS_H_
