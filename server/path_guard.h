// Confines ScoreFiles to one directory: a requested path is opened only if the file it names
// really lies inside the files root, after every symbolic link is resolved.
#ifndef SSIMD_SERVER_PATH_GUARD_H_
#define SSIMD_SERVER_PATH_GUARD_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ssimd {

class PathGuard {
 public:
  // `root` must be an existing directory; it is resolved once here. INVALID_ARGUMENT otherwise.
  static absl::StatusOr<PathGuard> Create(const std::string& root);

  // Opens `path` read-only and returns the descriptor (the caller closes it). `path` is relative
  // to the root, or absolute and inside it. Refused with INVALID_ARGUMENT: empty paths, NUL
  // bytes, any ".." component, and paths whose resolved target lies outside the root (through a
  // symbolic link, for instance) or is not a regular file. NOT_FOUND when nothing is there.
  // Messages start with `field` and never reveal what lies outside the root.
  absl::StatusOr<int> OpenForRead(absl::string_view path, absl::string_view field) const;

  const std::string& root() const { return root_; }

 private:
  explicit PathGuard(std::string root) : root_(std::move(root)) {}
  bool Inside(const std::string& resolved) const;

  std::string root_;  // resolved, without a trailing slash (except "/")
};

}  // namespace ssimd

#endif  // SSIMD_SERVER_PATH_GUARD_H_
