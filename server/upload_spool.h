// Files that clients upload (UploadFile) and later name as "upload:<id>" inputs: kept in one
// directory, bounded per file and in total, and forgotten after a time to live. Ids are 128
// random bits, so that one client cannot guess another's; files are created 0600.
#ifndef SSIMD_SERVER_UPLOAD_SPOOL_H_
#define SSIMD_SERVER_UPLOAD_SPOOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace ssimd {

// What an input names to use an upload: "upload:" followed by the id.
inline constexpr absl::string_view kUploadScheme = "upload:";

struct UploadSpoolOptions {
  std::string dir;  // must exist and be writable
  int64_t max_upload_bytes = int64_t{1} << 30;
  // All stored and incoming uploads together.
  int64_t max_total_bytes = int64_t{8} << 30;
  absl::Duration ttl = absl::Hours(1);
};

struct UploadReceiptInfo {
  std::string input;  // "upload:<id>"
  int64_t size_bytes = 0;
  absl::Duration expires_in;
};

class UploadSpool;

// One upload on its way in. Destroyed before Commit, it removes its partial file and gives its
// bytes back to the spool.
class UploadWriter {
 public:
  ~UploadWriter();
  UploadWriter(const UploadWriter&) = delete;
  UploadWriter& operator=(const UploadWriter&) = delete;

  // RESOURCE_EXHAUSTED, naming the limit, when the file would grow above --max_upload_bytes or
  // the spool above its total; the writer is then unusable (destroy it).
  absl::Status Append(absl::string_view bytes);
  // Makes the file usable under its id.
  absl::StatusOr<UploadReceiptInfo> Commit();

  int64_t size() const { return size_; }
  const std::string& id() const { return id_; }

 private:
  friend class UploadSpool;
  UploadWriter(UploadSpool* spool, std::string id, std::string path, int fd)
      : spool_(spool), id_(std::move(id)), path_(std::move(path)), fd_(fd) {}
  void Discard();

  UploadSpool* const spool_;
  const std::string id_;
  const std::string path_;
  int fd_;
  int64_t size_ = 0;
  bool committed_ = false;
};

class UploadSpool {
 public:
  // INVALID_ARGUMENT (naming the flag) for a directory that does not exist or a limit below 1.
  // Files an earlier run left in `dir` (named "ssimd-upload-*") are removed: their ids died with
  // it.
  static absl::StatusOr<std::unique_ptr<UploadSpool>> Create(const UploadSpoolOptions& options);
  ~UploadSpool();

  // Starts an upload of the file the client calls `file_name` (its extension, lowercased and
  // only if short and alphanumeric, stays in the id so that readers can tell raw .yuv and .y4m
  // from encoded files).
  absl::StatusOr<std::unique_ptr<UploadWriter>> Begin(absl::string_view file_name);

  // Opens the upload that `input` ("upload:<id>") names, read-only; the caller closes the
  // descriptor. NOT_FOUND, naming the id quoted, for unknown and expired ids; INVALID_ARGUMENT
  // for text that is not an upload id. Messages start with `field`.
  absl::StatusOr<int> OpenForRead(absl::string_view input, absl::string_view field);

  // Removes the uploads older than the time to live. Also done on every Begin and OpenForRead.
  void RemoveExpired();

  const UploadSpoolOptions& options() const { return options_; }
  // Stored plus incoming bytes.
  int64_t used_bytes() const;

 private:
  struct Stored {
    std::string path;
    int64_t size = 0;
    absl::Time expires;
  };
  explicit UploadSpool(UploadSpoolOptions options) : options_(std::move(options)) {}
  friend class UploadWriter;
  // Takes `bytes` more of the total, or says which limit they would pass.
  absl::Status Reserve(int64_t bytes);
  void Unreserve(int64_t bytes);
  void Store(const std::string& id, Stored stored);
  void RemoveExpiredLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const UploadSpoolOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, Stored> stored_ ABSL_GUARDED_BY(mu_);
  int64_t used_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_UPLOAD_SPOOL_H_
