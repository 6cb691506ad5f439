#include "tools/fault_load/ladder_rig.h"

#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ssimd::fault_load {
namespace {

int64_t FileBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

// Bombs at or under the server's picture limit would be decoded, not refused: they test nothing
// but the machine's memory, so they stay out of the run.
void KeepBombsOverLimit(uint64_t server_max_pixels, LadderMedia* media,
                        std::vector<std::string>* notes) {
  const uint64_t limit = server_max_pixels > 0 ? server_max_pixels : kOlderServerMaxPixels;
  std::vector<BombFile> kept;
  for (BombFile& bomb : media->bombs) {
    if (static_cast<uint64_t>(bomb.pixels()) > limit) {
      kept.push_back(std::move(bomb));
    } else {
      notes->push_back(absl::StrFormat(
          "decode bomb %s left out: the server decodes pictures of up to %d pixels", bomb.what,
          limit));
    }
  }
  media->bombs = std::move(kept);
}

LadderLimits Limits(const LadderMedia& media, LadderLimits limits) {
  limits.sets.clear();
  for (const LadderSet& set : media.sets) {
    limits.sets.push_back({set.frames, static_cast<int>(set.renditions.size())});
  }
  limits.long_set = media.long_set;
  limits.url_set = -1;
  limits.bombs = static_cast<int>(media.bombs.size());
  return limits;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LadderRig>> MakeLadderRig(LadderRigOptions options, Scorer* cpu) {
  auto rig = std::make_unique<LadderRig>();
  auto media = PrepareLadderMedia(options.media, cpu);
  if (!media.ok()) return media.status();
  rig->media = *std::move(media);
  rig->notes = rig->media.notes;
  KeepBombsOverLimit(options.server_max_pixels, &rig->media, &rig->notes);
  rig->limits = Limits(rig->media, options.limits);

  if (options.url_port > 0 && rig->media.url_set >= 0) {
    SlowHttpOptions http;
    http.root = options.media.files_root;
    http.path_prefix = absl::StrCat("/", kMediaFolder, "/");
    http.port = options.url_port;
    http.chunk_bytes = std::max<int64_t>(1, options.url_chunk_bytes);
    http.chunk_interval = options.url_chunk_interval;
    auto server = SlowHttpServer::Start(http);
    if (!server.ok()) return server.status();
    rig->http = *std::move(server);
    // The slowest rendition's transfer: the window in which a cancel lands mid-fetch.
    const LadderSet& set = rig->media.sets[rig->media.url_set];
    int64_t largest = 0;
    for (const LadderRendition& r : set.renditions) {
      largest = std::max(largest, FileBytes(absl::StrCat(options.media.files_root, "/", r.path)));
    }
    const int64_t chunks = (largest + http.chunk_bytes - 1) / http.chunk_bytes;
    rig->limits.url_fetch_time = std::max<int64_t>(1, chunks) * http.chunk_interval;
    rig->limits.url_set = rig->media.url_set;
  } else {
    rig->notes.push_back("slow URL ladders left out: no --url_port");
  }
  rig->judge = options.judge;
  rig->calls = std::make_unique<LadderCalls>(&rig->media, rig->http.get(), options.calls);
  return rig;
}

}  // namespace ssimd::fault_load
