// A ladder spread over replicas: each rendition in a ScoreLadder call of its own, all at once, so
// that a balanced client (a comma list or dns:/// target) sends them to different servers.
#ifndef SSIMD_CLIENT_LADDER_SPREAD_H_
#define SSIMD_CLIENT_LADDER_SPREAD_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/ssimd_client.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// The calls `request` becomes: the same request with one rendition each, in rendition order.
std::vector<v1::ScoreLadderRequest> SplitLadder(const v1::ScoreLadderRequest& request);

// Merges the reports of SplitLadder's calls into the shape one call gives: every rendition's
// frames and summary; the ladder summary counts the renditions and takes the largest source frame
// count and elapsed time of the parts. INVALID_ARGUMENT when two parts report one rendition.
absl::StatusOr<LadderReport> MergeLadderReports(std::vector<LadderReport> parts);

// Gives the client's servers a moment to connect (SsimdClient::LetServersConnect), then runs
// SplitLadder's calls concurrently on `client` and merges them. The first failed call's
// error is returned, naming its rendition.
absl::StatusOr<LadderReport> ScoreLadderSpread(SsimdClient& client,
                                               const v1::ScoreLadderRequest& request,
                                               absl::Duration timeout);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_LADDER_SPREAD_H_
