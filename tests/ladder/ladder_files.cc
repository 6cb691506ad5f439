#include "tests/ladder/ladder_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/reference/json.h"

namespace ssimd::testing {
namespace {

constexpr const char* kData = "tests/data/ladder/";
constexpr const char* kSources[] = {"src.y4m", "src_ffv1.mkv", "src10.y4m"};
constexpr const char* kRenditions[] = {
    "h264_1920x1080.mp4", "h264_1280x720.mp4",    "h264_960x540.mp4",
    "h264_640x360.mp4",   "h264_426x240.mp4",     "hevc_1280x720.mkv",
    "vp9_960x540.webm",   "hevc10_1920x1080.mkv", "hevc10_960x540.mkv"};

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

absl::Status LinkOrCopy(const std::string& from, const std::string& to) {
  if (Exists(to) || ::link(from.c_str(), to.c_str()) == 0) return absl::OkStatus();
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
  if (!in || !out) return absl::InternalError(absl::StrCat("cannot copy ", from, " to ", to));
  return absl::OkStatus();
}

}  // namespace

std::string LadderSourcesDir() {
  const char* dir = std::getenv("SSIMD_LADDER_SOURCES");
  return dir != nullptr && *dir != '\0' ? dir : "/var/cache/ssimd/ladder-sources";
}

std::string MissingSourcesReason() {
  for (const char* name : kSources) {
    const std::string path = absl::StrCat(LadderSourcesDir(), "/", name);
    if (!Exists(path)) {
      return absl::StrCat("no ladder source ", path,
                          "; tools/ladder_sources.sh rebuilds the sources (it needs Debian's "
                          "archive and ffmpeg), tools/test.sh runs it first");
    }
  }
  return "";
}

absl::StatusOr<std::vector<ExpectedRendition>> ReadExpectedScores(const std::string& file) {
  absl::StatusOr<nlohmann::json> doc = ReadJsonFile(absl::StrCat(kData, file));
  if (!doc.ok()) return doc.status();
  std::vector<ExpectedRendition> out;
  for (const nlohmann::json& r : (*doc)["renditions"]) {
    ExpectedRendition e;
    e.rendition = r["rendition"].get<std::string>();
    e.reference = r["reference"].get<std::string>();
    e.distorted = r["distorted"].get<std::string>();
    e.bit_depth = r["bit_depth"].get<int>();
    e.float_ssim = r["float_ssim"].get<std::vector<double>>();
    e.ssim = r["ssim"].get<std::vector<double>>();
    out.push_back(std::move(e));
  }
  return out;
}

absl::Status ReadExpectedMetrics(std::vector<ExpectedRendition>& renditions) {
  absl::StatusOr<nlohmann::json> doc = ReadJsonFile(absl::StrCat(kData, "expected_metrics.json"));
  if (!doc.ok()) return doc.status();
  for (ExpectedRendition& e : renditions) {
    bool found = false;
    for (const nlohmann::json& pair : (*doc)["pairs"]) {
      if (pair["id"].get<std::string>() != e.rendition) continue;
      e.psnr_y = pair["metrics"]["psnr_y"].get<std::vector<double>>();
      e.psnr_cb = pair["metrics"]["psnr_cb"].get<std::vector<double>>();
      e.psnr_cr = pair["metrics"]["psnr_cr"].get<std::vector<double>>();
      e.float_ms_ssim = pair["metrics"]["float_ms_ssim"].get<std::vector<double>>();
      for (const auto& [key, values] : pair["metrics"].items()) {
        if (key == "vmaf" || absl::StartsWith(key, "integer_") ||
            key == "VMAF_integer_feature_motion_sad_score") {
          e.vmaf[key] = values.get<std::vector<double>>();
        }
      }
      found = true;
    }
    if (!found) {
      return absl::NotFoundError(
          absl::StrCat("expected_metrics.json has no rendition ", e.rendition));
    }
  }
  return absl::OkStatus();
}

absl::Status FillFilesRoot(const std::string& dir, bool with_sources) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("cannot make ", dir, ": ", std::strerror(errno)));
  }
  for (const char* name : kRenditions) {
    absl::Status s = LinkOrCopy(absl::StrCat(kData, name), absl::StrCat(dir, "/", name));
    if (!s.ok()) return s;
  }
  for (const char* name : kSources) {
    if (!with_sources) break;
    absl::Status s =
        LinkOrCopy(absl::StrCat(LadderSourcesDir(), "/", name), absl::StrCat(dir, "/", name));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace ssimd::testing
