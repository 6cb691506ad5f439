#include "server/input_resolver.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/client_text.h"
#include "base/status_macros.h"

namespace ssimd {

InputReferenceKind KindOfInput(absl::string_view input) {
  if (absl::StartsWith(input, kUploadScheme)) return InputReferenceKind::kUpload;
  if (LooksLikeUrl(input)) return InputReferenceKind::kUrl;
  return InputReferenceKind::kPath;
}

std::string ReaderNameOfInput(absl::string_view input) {
  if (KindOfInput(input) == InputReferenceKind::kUrl) {
    input = input.substr(0, input.find_first_of("?#"));
  }
  // The readers print their name bare in their messages: a hostile path must come back short
  // and escaped there too, its extension (which picks the reader) kept.
  return BareClientName(input);
}

absl::Status InputResolver::Check(absl::string_view input, absl::string_view field) const {
  switch (KindOfInput(input)) {
    case InputReferenceKind::kUpload:
      if (uploads_ == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            field,
            ": uploads are disabled on this server: start it with --upload_dir=DIR, or give a "
            "path below its --files_root"));
      }
      return absl::OkStatus();
    case InputReferenceKind::kUrl: {
      if (urls_ == nullptr) {
        return absl::PermissionDeniedError(absl::StrCat(
            field, ": ", QuoteClientText(ReaderNameOfInput(input)),
            ": this server fetches no URLs (it has no --allow_url_prefix); upload the file "
            "with UploadFile and give its upload:<id> instead"));
      }
      absl::StatusOr<ParsedUrl> parsed = ParseHttpUrl(input);
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            field, ": ", QuoteClientText(ReaderNameOfInput(input)), ": ",
            parsed.status().message()));
      }
      if (!urls_->Allowed(*parsed)) {
        return absl::PermissionDeniedError(absl::StrCat(
            field, ": ", QuoteClientText(ReaderNameOfInput(input)),
            " is not under a URL prefix this server allows (--allow_url_prefix); ask its "
            "operator, or upload the file"));
      }
      return absl::OkStatus();
    }
    case InputReferenceKind::kPath:
      if (files_ == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            field,
            ": this server reads no paths: start it with --files_root=DIR, upload the file "
            "(UploadFile) and give its upload:<id>, or stream the frames with ScoreClip"));
      }
      return absl::OkStatus();
  }
  return absl::InternalError(absl::StrCat(field, ": unknown kind of input"));
}

FetchControl InputResolver::ControlForCall(std::function<bool()> call_ended) const {
  if (urls_ != nullptr) return urls_->ControlForCall(std::move(call_ended));
  return FetchControl(std::move(call_ended), absl::InfiniteDuration());
}

absl::StatusOr<int> InputResolver::OpenForRead(absl::string_view input, absl::string_view field,
                                               const FetchControl& control) const {
  SSIMD_RETURN_IF_ERROR(Check(input, field));
  // A call that ended opens nothing more: a ladder cancelled while its source was fetched must
  // not go on to its renditions.
  if (control.CallEnded()) {
    return absl::CancelledError(absl::StrCat(
        field, ": not opened: the call ended (cancelled by its client, its deadline, a lost "
        "connection or a server shutdown)"));
  }
  switch (KindOfInput(input)) {
    case InputReferenceKind::kUpload:
      return uploads_->OpenForRead(input, field);
    case InputReferenceKind::kUrl:
      return urls_->Fetch(input, field, control);
    case InputReferenceKind::kPath:
      return files_->OpenForRead(input, field);
  }
  return absl::InternalError(absl::StrCat(field, ": unknown kind of input"));
}

}  // namespace ssimd
