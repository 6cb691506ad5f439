// Turns API messages into engine settings, refusing anything out of range with INVALID_ARGUMENT
// (or RESOURCE_EXHAUSTED for sizes over the message limit) whose message starts with the field's
// path, e.g. "config.geometry.bit_depth: expected 8, 10, 12 or 16, got 7".
#ifndef SSIMD_SERVER_REQUEST_PARSING_H_
#define SSIMD_SERVER_REQUEST_PARSING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/dispatcher.h"
#include "engine/features.h"
#include "engine/picture.h"
#include "proto/ssimd/v1/ssimd.pb.h"
#include "server/service_options.h"

namespace ssimd {

// Everything a stream needs to score its frames, validated.
struct ClipSettings {
  Geometry geometry;
  FeatureSet features;
  BackendPreference backend = BackendPreference::kAuto;  // after the server's policy
  std::string title_id;
  std::string rung;
  std::map<std::string, std::string> labels;
  std::vector<double> percentiles;
};

absl::StatusOr<Geometry> ParseGeometry(const v1::Geometry& geometry, absl::string_view field);
// The features asked for, with vmaf's model resolved against `models`.
absl::StatusOr<FeatureSet> ParseFeatures(const v1::Features& features, absl::string_view field,
                                         const VmafModelRegistry& models);
// Applies the server's policy: kCpu makes every request CPU-only; kGpu makes kAuto GPU-only.
absl::StatusOr<BackendPreference> ParseBackend(int backend, BackendPreference policy,
                                               absl::string_view field);

// Every part of a ClipConfig except the geometry (ScoreFiles may take it from a .y4m header).
absl::StatusOr<ClipSettings> ParseClipOptions(const v1::ClipConfig& config,
                                              const ServiceOptions& options,
                                              absl::string_view field);

// RESOURCE_EXHAUSTED when one frame pair of this geometry cannot fit in a message.
absl::Status CheckFitsMessage(const Geometry& geometry, int64_t max_message_bytes,
                              absl::string_view field);

// RESOURCE_EXHAUSTED for a request message of `bytes` above --max_message_bytes.
absl::Status MessageTooLarge(absl::string_view message, size_t bytes, int64_t max_message_bytes);

// The receive limit handed to gRPC: twice --max_message_bytes (at most gRPC's 2 GiB). gRPC cancels
// a call whose message is above its limit without telling the server why; between the two limits
// the service refuses the message itself (MessageTooLarge), so the client, the log and the metrics
// see one status. See ADR 0067.
int TransportReceiveLimit(int64_t max_message_bytes);

// INVALID_ARGUMENT unless `bytes` holds exactly one luma plane of `geometry`.
absl::Status CheckPlaneSize(const Geometry& geometry, size_t bytes, absl::string_view field);

// A status from the engine with the field path put in front of its message.
absl::Status WithField(const absl::Status& status, absl::string_view field);

}  // namespace ssimd

#endif  // SSIMD_SERVER_REQUEST_PARSING_H_
