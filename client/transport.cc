#include "client/transport.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/io/input_kind.h"

namespace ssimd {

Transport ChooseTransport(Transport requested, const std::vector<std::string>& paths,
                          bool server_accepts_uploads) {
  if (requested != Transport::kAuto) return requested;
  const bool any_encoded = std::any_of(paths.begin(), paths.end(), [](const std::string& path) {
    return InputKindForPath(path) == InputKind::kEncoded;
  });
  return any_encoded && server_accepts_uploads ? Transport::kUpload : Transport::kFrames;
}

const char* TransportName(Transport transport) {
  switch (transport) {
    case Transport::kAuto: return "auto";
    case Transport::kServerFiles: return "server_files";
    case Transport::kUpload: return "upload";
    case Transport::kFrames: return "frames";
  }
  return "unknown";
}

v1::UpscaleOptions UpscaleProto(const ScalerChoice& scaler) {
  v1::UpscaleOptions upscale;
  switch (scaler.kind) {
    case ScalerKind::kBicubic: upscale.set_scaler(v1::SCALER_BICUBIC); break;
    case ScalerKind::kBilinear: upscale.set_scaler(v1::SCALER_BILINEAR); break;
    case ScalerKind::kLanczos: upscale.set_scaler(v1::SCALER_LANCZOS); break;
    case ScalerKind::kSpline: upscale.set_scaler(v1::SCALER_SPLINE); break;
    case ScalerKind::kNeighbor: upscale.set_scaler(v1::SCALER_NEIGHBOR); break;
  }
  upscale.set_accurate_rounding(scaler.accurate_rounding);
  return upscale;
}

absl::StatusOr<ServerInputs> PrepareServerInputs(SsimdClient& client, const CliOptions& options,
                                                 const std::vector<std::string>& files,
                                                 std::FILE* err) {
  const bool may_upload = ChooseTransport(options.transport, files, true) == Transport::kUpload;
  ServerInputs inputs;
  inputs.transport = ChooseTransport(options.transport, files, may_upload);
  if (inputs.transport == Transport::kFrames) return inputs;
  absl::StatusOr<std::vector<std::string>> names =
      ServerSideNames(client, inputs.transport, files, options.timeout);
  if (names.ok()) {
    inputs.names = *std::move(names);
    return inputs;
  }
  // A server without a spool (or older than uploads) says so before taking any bytes.
  const bool uploads_unavailable = names.status().code() == absl::StatusCode::kFailedPrecondition ||
                                   names.status().code() == absl::StatusCode::kUnimplemented;
  if (options.transport != Transport::kAuto || !uploads_unavailable) return names.status();
  if (!options.quiet) {
    std::fprintf(err,
                 "ssimd-score: the server takes no uploads (%s); decoding here and sending "
                 "frames instead\n",
                 std::string(names.status().message()).c_str());
  }
  inputs.transport = Transport::kFrames;
  return inputs;
}

absl::StatusOr<std::vector<std::string>> ServerSideNames(SsimdClient& client, Transport transport,
                                                         const std::vector<std::string>& files,
                                                         absl::Duration timeout) {
  if (transport == Transport::kServerFiles) return files;
  if (transport != Transport::kUpload) {
    return absl::InternalError(absl::StrCat("transport ", TransportName(transport),
                                            " sends no files to the server"));
  }
  std::vector<std::string> names;
  for (const std::string& path : files) {
    absl::StatusOr<v1::UploadReceipt> receipt = client.UploadFile(path, timeout);
    if (!receipt.ok()) return receipt.status();
    names.push_back(receipt->input());
  }
  return names;
}

}  // namespace ssimd
