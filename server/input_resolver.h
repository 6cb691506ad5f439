// The one place that turns the text a ScoreFiles or ScoreLadder request gives for an input into a
// read-only descriptor (docs/adr/0078). The text names one of three kinds: "upload:<id>" (a file
// the client stored with UploadFile), an http(s) URL (fetched when an allowed prefix covers it),
// or a path below the files root. Each kind works only where the server turned it on, and a
// request for a kind that is off says which flag turns it on.
#ifndef SSIMD_SERVER_INPUT_RESOLVER_H_
#define SSIMD_SERVER_INPUT_RESOLVER_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/fetch_control.h"
#include "server/path_guard.h"
#include "server/upload_spool.h"
#include "server/url_source.h"

namespace ssimd {

enum class InputReferenceKind { kPath, kUpload, kUrl };

// Which kind `input` names. "upload:" and "http(s)://" always mean an upload or a URL, so a file
// below the root whose name starts so cannot be named as a path (give it as "./upload:...").
InputReferenceKind KindOfInput(absl::string_view input);

// The name the readers go by: its extension chooses raw .yuv, .y4m or FFmpeg, and messages name
// the input by it. An upload id keeps its file's extension, so it is its own name; a URL loses
// its query and fragment, which end no file name and may hold a signature that belongs in no log
// or message; a path stays as given. Past kQuotedClientBytes, or with control bytes, quotes or
// backslashes, the name is BareClientName's: escaped, cut, its extension kept.
std::string ReaderNameOfInput(absl::string_view input);

class InputResolver {
 public:
  // Any of the three may be null: that kind of input is off. They must outlive the resolver.
  InputResolver(const PathGuard* files, UploadSpool* uploads, const UrlSource* urls)
      : files_(files), uploads_(uploads), urls_(urls) {}

  // True when at least one kind is on (ScoreFiles and ScoreLadder can serve something).
  bool any_enabled() const {
    return files_ != nullptr || uploads_ != nullptr || urls_ != nullptr;
  }

  // Refuses, without touching the disk or the network, an input whose kind is off here
  // (FAILED_PRECONDITION for paths and uploads, PERMISSION_DENIED for URLs) or a URL outside the
  // allowed prefixes (PERMISSION_DENIED, or INVALID_ARGUMENT when it is no URL at all). Lets a
  // request fail before an earlier input of it is fetched. Messages start with `field`.
  absl::Status Check(absl::string_view input, absl::string_view field) const;

  // What stops the inputs of a call starting now: `call_ended` (cheap, e.g. an atomic flag the
  // reactor's OnCancel sets) and, for URLs, --url_call_timeout. Make one per call, before its
  // first OpenForRead, and pass it to each.
  FetchControl ControlForCall(std::function<bool()> call_ended) const;

  // Check, then opens the input read-only; the caller closes the descriptor. CANCELLED, without
  // touching the disk or the network, once `control` says the call ended. Other errors are
  // those of PathGuard::OpenForRead, UploadSpool::OpenForRead and UrlSource::Fetch (which also
  // stops a transfer under way when the call ends or its time for fetching runs out). A URL is
  // fetched whole before this returns (up to --url_timeout): never call it on a gRPC thread.
  absl::StatusOr<int> OpenForRead(absl::string_view input, absl::string_view field,
                                  const FetchControl& control = FetchControl()) const;

 private:
  const PathGuard* const files_;
  UploadSpool* const uploads_;
  const UrlSource* const urls_;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_INPUT_RESOLVER_H_
