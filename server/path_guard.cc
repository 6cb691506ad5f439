#include "server/path_guard.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "base/client_text.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ssimd {
namespace {

absl::StatusOr<std::string> Resolve(const std::string& path) {
  std::unique_ptr<char, decltype(&::free)> resolved(::realpath(path.c_str(), nullptr), &::free);
  if (resolved == nullptr) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(std::strerror(err));
    return absl::InvalidArgumentError(std::strerror(err));
  }
  return std::string(resolved.get());
}

}  // namespace

absl::StatusOr<PathGuard> PathGuard::Create(const std::string& root) {
  if (root.empty()) return absl::InvalidArgumentError("files root: empty path");
  auto resolved = Resolve(root);
  struct stat st;
  if (!resolved.ok() || ::stat(resolved->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("files root ", root, " is not an existing directory"));
  }
  return PathGuard(*resolved);
}

bool PathGuard::Inside(const std::string& resolved) const {
  if (root_ == "/") return true;
  return resolved == root_ || absl::StartsWith(resolved, absl::StrCat(root_, "/"));
}

absl::StatusOr<int> PathGuard::OpenForRead(absl::string_view path, absl::string_view field) const {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": empty; give a file path relative to the server's files root"));
  }
  if (path.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": contains a NUL byte"));
  }
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": \"..\" is not allowed; give a path inside the server's files root"));
    }
  }
  const std::string requested =
      path.front() == '/' ? std::string(path) : absl::StrCat(root_, "/", path);
  if (path.front() == '/' && !Inside(requested)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", QuoteClientText(path),
        " is outside the server's files root; give a path inside it"));
  }
  auto resolved = Resolve(requested);
  if (!resolved.ok()) {
    if (absl::IsNotFound(resolved.status())) {
      return absl::NotFoundError(
          absl::StrCat(field, ": no file ", QuoteClientText(path), " under the server's files root"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": cannot resolve ", QuoteClientText(path), ": ", resolved.status().message()));
  }
  if (!Inside(*resolved)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", QuoteClientText(path),
        " leads outside the server's files root (through a symbolic link); give a path to a "
        "file inside it"));
  }
  // O_NOFOLLOW and the check below close the window in which a path component could be swapped
  // for a link between resolving and opening.
  const int fd = ::open(resolved->c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat(field, ": no file ", QuoteClientText(path), " under the server's files root"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": cannot open ", QuoteClientText(path), ": ", std::strerror(err)));
  }
  struct stat st;
  char link[PATH_MAX + 1];
  const std::string proc = absl::StrCat("/proc/self/fd/", fd);
  const ssize_t n = ::readlink(proc.c_str(), link, PATH_MAX);
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || n <= 0 ||
      !Inside(std::string(link, static_cast<size_t>(n)))) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", QuoteClientText(path), " is not a regular file inside the server's files root"));
  }
  // Regular files ignore O_NONBLOCK; it only kept a FIFO from blocking the open above.
  return fd;
}

}  // namespace ssimd
