#include "client/ladder_spread.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ssimd {

std::vector<v1::ScoreLadderRequest> SplitLadder(const v1::ScoreLadderRequest& request) {
  std::vector<v1::ScoreLadderRequest> out;
  for (const v1::Rendition& rendition : request.renditions()) {
    v1::ScoreLadderRequest part = request;
    part.clear_renditions();
    *part.add_renditions() = rendition;
    out.push_back(std::move(part));
  }
  return out;
}

absl::StatusOr<LadderReport> MergeLadderReports(std::vector<LadderReport> parts) {
  LadderReport merged;
  for (LadderReport& part : parts) {
    for (auto& [name, report] : part.renditions) {
      if (!merged.renditions.emplace(name, std::move(report)).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("rendition \"", name, "\" came back from two calls"));
      }
    }
    merged.ladder.set_source_frames(
        std::max(merged.ladder.source_frames(), part.ladder.source_frames()));
    merged.ladder.set_elapsed_seconds(
        std::max(merged.ladder.elapsed_seconds(), part.ladder.elapsed_seconds()));
  }
  merged.ladder.set_renditions(static_cast<uint32_t>(merged.renditions.size()));
  return merged;
}

absl::StatusOr<LadderReport> ScoreLadderSpread(SsimdClient& client,
                                               const v1::ScoreLadderRequest& request,
                                               absl::Duration timeout) {
  const std::vector<v1::ScoreLadderRequest> calls = SplitLadder(request);
  // The calls start together; each should find every server connected.
  client.LetServersConnect(absl::Milliseconds(300));
  std::vector<absl::StatusOr<LadderReport>> results(calls.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < calls.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = client.ScoreLadder(calls[i], timeout); });
  }
  for (std::thread& t : threads) t.join();
  std::vector<LadderReport> parts;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      const absl::Status& s = results[i].status();
      return absl::Status(s.code(), absl::StrCat("rendition \"", calls[i].renditions(0).name(),
                                                 "\": ", s.message()));
    }
    parts.push_back(*std::move(results[i]));
  }
  return MergeLadderReports(std::move(parts));
}

}  // namespace ssimd
