// Which way ssimd-score sends a run's videos to the server, and the request parts every
// server-side transport shares.
#ifndef SSIMD_CLIENT_TRANSPORT_H_
#define SSIMD_CLIENT_TRANSPORT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/cli_options.h"
#include "client/ssimd_client.h"
#include "engine/scaler_choice.h"
#include "proto/ssimd/v1/ssimd.pb.h"

namespace ssimd {

// kAuto resolved: kServerFiles stays as asked; otherwise an upload when any of `paths` is an
// encoded file (compressed: far fewer bytes than its frames) and the server accepts uploads,
// else frames. Anything asked for explicitly is kept.
Transport ChooseTransport(Transport requested, const std::vector<std::string>& paths,
                          bool server_accepts_uploads);

const char* TransportName(Transport transport);

v1::UpscaleOptions UpscaleProto(const ScalerChoice& scaler);

struct ServerInputs {
  Transport transport = Transport::kFrames;
  // For the server-side transports: how the request names each file, in the order given.
  std::vector<std::string> names;
};

// Settles the run's transport for `files` (the reference first) and, for a server-side one, gets
// the files there. With --transport auto an upload the server refuses as unavailable (no spool,
// or a server that predates uploads) turns into the frames transport, with a note on `err`.
absl::StatusOr<ServerInputs> PrepareServerInputs(SsimdClient& client, const CliOptions& options,
                                                 const std::vector<std::string>& files,
                                                 std::FILE* err);

// How the server is to name each of `files` in a ScoreFiles or ScoreLadder request: the path
// itself for kServerFiles, an upload's id for kUpload (each file uploaded first).
absl::StatusOr<std::vector<std::string>> ServerSideNames(SsimdClient& client, Transport transport,
                                                         const std::vector<std::string>& files,
                                                         absl::Duration timeout);

}  // namespace ssimd

#endif  // SSIMD_CLIENT_TRANSPORT_H_
