// Decoding one encoded file with one decoder and with several (segmented decoding,
// engine/media/segmented_decoding.h), side by side in one run: frames per second of each
// decoder count, its ratio to one decoder, and whether every picture equals one decoder's. For
// comparison, --independent also runs n whole-file decoders of this process at once, and
// --free_shares n decoders each on its share of the segments, pictures not put back in order.
//
//   decode_split_bench --file=F [--decoders=1,2,4] [--rounds=3] [--hw_decode=cuda]
//                      [--pictures_ahead=32] [--min_segment_packets=24] [--on_device]
//                      [--cpu_decoders=K] [--independent] [--free_shares]
//
// Rounds alternate the decoder counts, so drift of the machine touches each alike; they only
// count pictures. A last round per count compares every picture with one decoder's (not timed).
// With --hw_decode each decoder takes a session on the device (NVDEC: an engine each), except
// the --cpu_decoders of each segmented count, which decode on cores beside the engines. Each
// count's line gives its start-up (decoders opened; first picture out) and how many segments
// each decoder took (decoders done with a segment take the next free one). With
// --on_device the timed rounds leave NVDEC's pictures in device memory, copied out of the
// engine's surface as the GPU scorer reads them, instead of bringing each to the host: what the
// engines and their copies sustain without the host's download and conversion.
#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "engine/media/frame_planes.h"
#include "engine/media/hw_decode_device.h"
#include "engine/media/segmented_decoding.h"
#include "engine/media/video_decoder.h"

ABSL_FLAG(std::string, file, "", "The encoded file to decode.");
ABSL_FLAG(std::string, decoders, "1,2,4", "Decoder counts to compare (1 is always measured).");
ABSL_FLAG(int, rounds, 3, "Rounds; each decodes the whole file once per decoder count.");
ABSL_FLAG(std::string, hw_decode, "", "cuda or vaapi: decode on the device's engines.");
ABSL_FLAG(int, hw_decode_sessions, 32, "Decoder sessions allowed on the device.");
ABSL_FLAG(int, pictures_ahead, 32, "Pictures each decoder may hold ready (memory bound).");
ABSL_FLAG(int, min_segment_packets, 24, "Shortest segment, in packets.");
ABSL_FLAG(int, cpu_decoders, 0,
          "Of each segmented count's decoders, how many decode on the CPU (fewer than every "
          "count above 1).");
ABSL_FLAG(bool, independent, false,
          "Also decode the whole file with n independent decoders at once (threads of this "
          "process), for each decoder count n: what n decoders of one process sustain when they "
          "do not share a file's segments.");
ABSL_FLAG(bool, free_shares, false,
          "Also decode the file's segments with n decoders at once, each its own share of them "
          "(decoder i of n: segments i, i + n, ...) on a thread of its own, pictures counted as "
          "they come, out of order: segmented decoding without putting the pictures back in "
          "order.");
ABSL_FLAG(bool, on_device, false,
          "With --hw_decode=cuda: timed rounds keep pictures in device memory (the comparison "
          "round still brings them to the host).");

namespace ssimd {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Run {
  double seconds = 0;
  double open_seconds = 0;           // until every decoder was open and started
  double first_picture_seconds = 0;  // until the first picture came out
  uint64_t frames = 0;
  uint64_t segments = 1;
  std::string backend;
  std::string segments_by_decoder;  // "5/4/3": segments each decoder took
  std::vector<uint64_t> digests;  // one per picture, to compare with one decoder's
};

// A cheap digest of a picture's bytes (FNV-1a), enough to catch any difference.
uint64_t Digest(const std::string& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h ^ bytes.size();
}

template <typename Source>
bool DecodeAll(Source& source, bool digest, Clock::time_point start, Run& run) {
  while (true) {
    absl::StatusOr<const AVFrame*> picture = source.Next();
    if (!picture.ok()) {
      std::fprintf(stderr, "decoding failed: %s\n", picture.status().ToString().c_str());
      return false;
    }
    if (*picture == nullptr) return true;
    if (run.frames == 0) run.first_picture_seconds = SecondsSince(start);
    if (digest) run.digests.push_back(Digest(PackedPicture(**picture)));
    ++run.frames;
  }
}

bool DecodeOnce(const std::string& path, int decoders,
                const std::shared_ptr<HwDecodeDevice>& device, bool digest, bool on_device,
                Run& run, const VideoDecoder::SegmentShare* share = nullptr) {
  const Clock::time_point start = Clock::now();
  auto decoder = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits(), device);
  if (!decoder.ok()) {
    std::fprintf(stderr, "%s\n", decoder.status().ToString().c_str());
    return false;
  }
  if (on_device) (*decoder)->KeepPicturesOnDevice();
  if (share != nullptr) (*decoder)->DecodeSegmentShare(*share);
  bool ok;
  if (decoders == 1) {
    run.open_seconds = SecondsSince(start);
    ok = DecodeAll(**decoder, digest, start, run);
    run.backend = (*decoder)->decode_backend();
  } else {
    SegmentedDecodingOptions options;
    options.decoders = decoders;
    options.pictures_ahead = static_cast<size_t>(absl::GetFlag(FLAGS_pictures_ahead));
    options.min_segment_packets = absl::GetFlag(FLAGS_min_segment_packets);
    options.cpu_decoders = absl::GetFlag(FLAGS_cpu_decoders);
    std::unique_ptr<VideoDecoder> first = *std::move(decoder);
    auto segmented = SegmentedDecoding::Start(first, DecodeLimits(), options);
    if (!segmented.ok()) {
      std::fprintf(stderr, "%s\n", segmented.status().ToString().c_str());
      return false;
    }
    // The decoders opened beside the first one learn it too.
    if (on_device) (*segmented)->KeepPicturesOnDevice();
    run.open_seconds = SecondsSince(start);
    ok = DecodeAll(**segmented, digest, start, run);
    run.segments = (*segmented)->segments();
    for (uint64_t taken : (*segmented)->segments_by_decoder()) {
      if (!run.segments_by_decoder.empty()) run.segments_by_decoder += "/";
      run.segments_by_decoder += std::to_string(taken);
    }
    run.backend = (*segmented)->decode_backend();
  }
  run.seconds = SecondsSince(start);
  return ok;
}

// n decoders at once, each on a thread of its own: the whole file each, or (share_segments) the
// file's segments shared out as segmented decoding does, pictures counted as they come; false
// when a decoder failed or the shares did not add up to the file's `pictures`.
bool PrintConcurrent(const std::string& path, const std::vector<int>& counts,
                     const std::shared_ptr<HwDecodeDevice>& device, bool on_device,
                     bool share_segments, uint64_t pictures, double one_decoder_fps) {
  std::printf("%-9s %-8s %-22s %s\n", "decoders", "backend",
              share_segments ? "free shares (best fps)" : "independent (best fps)",
              "ratio to 1 decoder");
  for (int n : counts) {
    double best = 0;
    std::string backend;
    for (int round = 0; round < absl::GetFlag(FLAGS_rounds); ++round) {
      std::vector<Run> each(static_cast<size_t>(n));
      std::vector<char> ok(static_cast<size_t>(n), 0);
      const Clock::time_point start = Clock::now();
      std::vector<std::thread> threads;
      for (int i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
          const VideoDecoder::SegmentShare share{i, n, absl::GetFlag(FLAGS_min_segment_packets)};
          ok[i] = DecodeOnce(path, 1, device, /*digest=*/false, on_device, each[i],
                             share_segments && n > 1 ? &share : nullptr)
                      ? 1
                      : 0;
        });
      }
      for (std::thread& t : threads) t.join();
      const double seconds = SecondsSince(start);
      uint64_t frames = 0;
      for (int i = 0; i < n; ++i) {
        if (!ok[i]) return false;
        frames += each[i].frames;
      }
      const uint64_t expected = share_segments ? pictures : pictures * static_cast<uint64_t>(n);
      if (frames != expected) {
        std::fprintf(stderr, "%d decoders returned %llu pictures, expected %llu\n", n,
                     static_cast<unsigned long long>(frames),
                     static_cast<unsigned long long>(expected));
        return false;
      }
      best = std::max(best, static_cast<double>(frames) / seconds);
      backend = each[0].backend;
    }
    std::printf("%-9d %-8s %-22.1f %.2f\n", n, backend.c_str(), best, best / one_decoder_fps);
  }
  return true;
}

int Main() {
  const std::string path = absl::GetFlag(FLAGS_file);
  if (path.empty()) {
    std::fprintf(stderr, "--file is required\n");
    return 2;
  }
  std::vector<int> counts = {1};
  for (absl::string_view word : absl::StrSplit(absl::GetFlag(FLAGS_decoders), ',')) {
    int n = 0;
    if (!absl::SimpleAtoi(word, &n) || n < 1 || n > 32) {
      std::fprintf(stderr, "--decoders: bad count '%s'\n", std::string(word).c_str());
      return 2;
    }
    if (n != 1) counts.push_back(n);
    if (n != 1 && absl::GetFlag(FLAGS_cpu_decoders) >= n) {
      std::fprintf(stderr, "--cpu_decoders must be below every decoder count above 1\n");
      return 2;
    }
  }
  std::shared_ptr<HwDecodeDevice> device;
  if (!absl::GetFlag(FLAGS_hw_decode).empty()) {
    auto opened = HwDecodeDevice::Open(
        {absl::GetFlag(FLAGS_hw_decode), "", absl::GetFlag(FLAGS_hw_decode_sessions)});
    if (!opened.ok()) {
      std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
      return 1;
    }
    device = *opened;
  }
  bool on_device = false;
  if (absl::GetFlag(FLAGS_on_device)) {
    absl::StatusOr<int> picture_device =
        device == nullptr ? absl::FailedPreconditionError("--on_device needs --hw_decode=cuda")
                          : device->PictureDevice();
    if (!picture_device.ok()) {
      std::fprintf(stderr, "%s\n", picture_device.status().ToString().c_str());
      return 2;
    }
    on_device = true;
  }
  std::map<int, std::vector<Run>> runs;
  for (int round = 0; round < absl::GetFlag(FLAGS_rounds); ++round) {
    for (int n : counts) {
      Run run;
      if (!DecodeOnce(path, n, device, /*digest=*/false, on_device, run)) return 1;
      runs[n].push_back(std::move(run));
    }
  }
  std::map<int, Run> checked;
  for (int n : counts) {
    if (!DecodeOnce(path, n, device, /*digest=*/true, /*on_device=*/false, checked[n])) return 1;
  }
  const std::vector<uint64_t>& reference = checked[1].digests;
  double one_decoder_fps = 0;
  std::printf("file %s, %zu pictures, %d rounds, timed pictures %s\n", path.c_str(),
              reference.size(), absl::GetFlag(FLAGS_rounds),
              on_device ? "kept in device memory" : "brought to the host");
  std::printf("%-9s %-8s %-9s %-12s %-12s %-8s %-9s %-10s %s\n", "decoders", "backend",
              "segments", "fps (best)", "fps (median)", "ratio", "open ms", "first ms",
              "pictures (segments by decoder, last round)");
  for (int n : counts) {
    std::vector<double> fps;
    const bool same = checked[n].digests == reference;
    for (const Run& r : runs[n]) fps.push_back(static_cast<double>(r.frames) / r.seconds);
    std::sort(fps.begin(), fps.end());
    const double median = fps[fps.size() / 2];
    // Medians of the start-up: opening every decoder (the first, then the others side by side),
    // and the first picture (the engines' sessions are created as decoding starts).
    auto MedianMs = [&](double Run::*field) {
      std::vector<double> ms;
      for (const Run& r : runs[n]) ms.push_back(r.*field * 1e3);
      std::sort(ms.begin(), ms.end());
      return ms[ms.size() / 2];
    };
    if (n == 1) one_decoder_fps = median;
    std::printf("%-9d %-8s %-9llu %-12.1f %-12.1f %-8.2f %-9.1f %-10.1f %s %s\n", n,
                runs[n][0].backend.c_str(), static_cast<unsigned long long>(runs[n][0].segments),
                fps.back(), median, median / one_decoder_fps, MedianMs(&Run::open_seconds),
                MedianMs(&Run::first_picture_seconds),
                same ? "same as 1 decoder" : "DIFFERENT",
                runs[n].back().segments_by_decoder.c_str());
    if (!same) return 1;
  }
  const uint64_t pictures = reference.size();
  if (absl::GetFlag(FLAGS_independent) &&
      !PrintConcurrent(path, counts, device, on_device, /*share_segments=*/false, pictures,
                       one_decoder_fps)) {
    return 1;
  }
  if (absl::GetFlag(FLAGS_free_shares) &&
      !PrintConcurrent(path, counts, device, on_device, /*share_segments=*/true, pictures,
                       one_decoder_fps)) {
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace ssimd

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return ssimd::Main();
}
