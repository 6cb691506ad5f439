#include "server/upload_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/client_text.h"

namespace ssimd {
namespace {

constexpr absl::string_view kFilePrefix = "ssimd-upload-";
constexpr size_t kIdRandomBytes = 16;
constexpr size_t kMaxExtensionChars = 8;

absl::StatusOr<std::string> RandomHex() {
  unsigned char bytes[kIdRandomBytes];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("no random bytes for an upload id: ",
                                              std::strerror(errno)));
    }
    got += static_cast<size_t>(n);
  }
  std::string hex;
  for (unsigned char b : bytes) absl::StrAppendFormat(&hex, "%02x", b);
  return hex;
}

// ".mp4" for "Clip.MP4"; empty when the name has no short alphanumeric extension (such a file is
// then read as an encoded one, which FFmpeg probes by content).
std::string ExtensionOf(absl::string_view file_name) {
  const size_t dot = file_name.rfind('.');
  if (dot == absl::string_view::npos) return "";
  const absl::string_view ext = file_name.substr(dot + 1);
  if (ext.empty() || ext.size() > kMaxExtensionChars) return "";
  for (char c : ext) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return "";
  }
  return absl::StrCat(".", absl::AsciiStrToLower(ext));
}

// The id part of "upload:<32 hex><.ext>", or nullopt-like empty for anything else.
bool IsWellFormedId(absl::string_view id) {
  if (id.size() < 2 * kIdRandomBytes) return false;
  for (size_t i = 0; i < 2 * kIdRandomBytes; ++i) {
    const char c = id[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  const absl::string_view ext = id.substr(2 * kIdRandomBytes);
  return ext.empty() || ExtensionOf(ext) == ext;
}

std::string MiBText(int64_t bytes) {
  return absl::StrFormat("%d bytes (%.1f MiB)", bytes, static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

UploadWriter::~UploadWriter() {
  if (!committed_) Discard();
}

void UploadWriter::Discard() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
    spool_->Unreserve(size_);
  }
}

absl::Status UploadWriter::Append(absl::string_view bytes) {
  if (fd_ < 0 || committed_) {
    return absl::FailedPreconditionError("this upload has already ended");
  }
  if (bytes.empty()) return absl::OkStatus();
  const int64_t limit = spool_->options().max_upload_bytes;
  if (size_ + static_cast<int64_t>(bytes.size()) > limit) {
    Discard();
    return absl::ResourceExhaustedError(absl::StrCat(
        "the upload is larger than this server's limit of ", MiBText(limit),
        " per file (--max_upload_bytes); send a smaller (compressed) file"));
  }
  if (absl::Status reserved = spool_->Reserve(static_cast<int64_t>(bytes.size()));
      !reserved.ok()) {
    Discard();
    return reserved;
  }
  size_ += static_cast<int64_t>(bytes.size());
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      Discard();
      return absl::ResourceExhaustedError(absl::StrCat(
          "the server could not store the upload (", std::strerror(error),
          "); retry later or on another replica"));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::StatusOr<UploadReceiptInfo> UploadWriter::Commit() {
  if (fd_ < 0 || committed_) {
    return absl::FailedPreconditionError("this upload has already ended");
  }
  if (::close(fd_) != 0) {
    const int error = errno;
    fd_ = -1;
    ::unlink(path_.c_str());
    spool_->Unreserve(size_);
    return absl::ResourceExhaustedError(
        absl::StrCat("the server could not store the upload (", std::strerror(error), ")"));
  }
  fd_ = -1;
  committed_ = true;
  const absl::Duration ttl = spool_->options().ttl;
  spool_->Store(id_, {path_, size_, absl::Now() + ttl});
  return UploadReceiptInfo{absl::StrCat(kUploadScheme, id_), size_, ttl};
}

absl::StatusOr<std::unique_ptr<UploadSpool>> UploadSpool::Create(
    const UploadSpoolOptions& options) {
  if (options.max_upload_bytes < 1 || options.max_total_bytes < options.max_upload_bytes) {
    return absl::InvalidArgumentError(
        "--max_upload_bytes must be at least 1 and at most --max_upload_total_bytes");
  }
  if (options.ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--upload_ttl must be positive");
  }
  struct stat info;
  if (options.dir.empty() || ::stat(options.dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
      ::access(options.dir.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--upload_dir: ", options.dir, " is not an existing directory this server can write"));
  }
  if (DIR* dir = ::opendir(options.dir.c_str())) {
    std::vector<std::string> stale;
    while (const dirent* entry = ::readdir(dir)) {
      if (absl::StartsWith(entry->d_name, kFilePrefix)) stale.push_back(entry->d_name);
    }
    ::closedir(dir);
    for (const std::string& name : stale) ::unlink(absl::StrCat(options.dir, "/", name).c_str());
  }
  return std::unique_ptr<UploadSpool>(new UploadSpool(options));
}

UploadSpool::~UploadSpool() {
  absl::MutexLock lock(&mu_);
  for (const auto& [id, stored] : stored_) ::unlink(stored.path.c_str());
}

absl::StatusOr<std::unique_ptr<UploadWriter>> UploadSpool::Begin(absl::string_view file_name) {
  RemoveExpired();
  absl::StatusOr<std::string> hex = RandomHex();
  if (!hex.ok()) return hex.status();
  const std::string id = absl::StrCat(*hex, ExtensionOf(file_name));
  const std::string path = absl::StrCat(options_.dir, "/", kFilePrefix, id);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("the server cannot create an upload file in ",
                                            "--upload_dir: ", std::strerror(errno)));
  }
  return std::unique_ptr<UploadWriter>(new UploadWriter(this, id, path, fd));
}

absl::StatusOr<int> UploadSpool::OpenForRead(absl::string_view input, absl::string_view field) {
  if (!absl::StartsWith(input, kUploadScheme) ||
      !IsWellFormedId(input.substr(kUploadScheme.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", QuoteClientText(input),
        " is not an upload id; give the `input` of an UploadFile receipt, as it came"));
  }
  const std::string id(input.substr(kUploadScheme.size()));
  std::string path;
  {
    absl::MutexLock lock(&mu_);
    RemoveExpiredLocked(absl::Now());
    auto it = stored_.find(id);
    if (it != stored_.end()) path = it->second.path;
  }
  const auto not_found = [&] {
    return absl::NotFoundError(absl::StrCat(
        field, ": no upload ", QuoteClientText(input),
        " on this server: it expired (--upload_ttl), was stored by another replica, or never "
        "existed; upload the file again"));
  };
  if (path.empty()) return not_found();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return not_found();
  return fd;
}

void UploadSpool::RemoveExpired() {
  absl::MutexLock lock(&mu_);
  RemoveExpiredLocked(absl::Now());
}

void UploadSpool::RemoveExpiredLocked(absl::Time now) {
  for (auto it = stored_.begin(); it != stored_.end();) {
    if (it->second.expires <= now) {
      // A reader that opened the file before keeps it until it closes its descriptor.
      ::unlink(it->second.path.c_str());
      used_bytes_ -= it->second.size;
      it = stored_.erase(it);
    } else {
      ++it;
    }
  }
}

int64_t UploadSpool::used_bytes() const {
  absl::MutexLock lock(&mu_);
  return used_bytes_;
}

absl::Status UploadSpool::Reserve(int64_t bytes) {
  absl::MutexLock lock(&mu_);
  RemoveExpiredLocked(absl::Now());
  if (used_bytes_ + bytes > options_.max_total_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "this server's upload spool is full (", MiBText(options_.max_total_bytes),
        ", --max_upload_total_bytes); retry after earlier uploads expire, or on another replica"));
  }
  used_bytes_ += bytes;
  return absl::OkStatus();
}

void UploadSpool::Unreserve(int64_t bytes) {
  absl::MutexLock lock(&mu_);
  used_bytes_ -= bytes;
}

void UploadSpool::Store(const std::string& id, Stored stored) {
  absl::MutexLock lock(&mu_);
  stored_[id] = std::move(stored);
}

}  // namespace ssimd
