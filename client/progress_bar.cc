#include "client/progress_bar.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace ssimd {

ProgressBar::ProgressBar(std::FILE* out, bool enabled, std::optional<uint64_t> total)
    : out_(out), enabled_(enabled), total_(total), start_(absl::Now()) {}

std::string ProgressBar::Render(uint64_t done, std::optional<uint64_t> total,
                                absl::Duration elapsed, int width) {
  const double seconds = absl::ToDoubleSeconds(elapsed);
  const double fps = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  if (!total.has_value() || *total == 0) {
    return absl::StrFormat("%d frames  %.1f fps", done, fps);
  }
  const uint64_t shown = std::min(done, *total);
  const int filled = static_cast<int>(static_cast<double>(width) * shown / *total);
  std::string bar(filled, '=');
  if (filled < width) bar += '>';
  bar.resize(width, ' ');
  return absl::StrFormat("[%s] %d/%d frames  %.1f fps", bar, shown, *total, fps);
}

void ProgressBar::Update(uint64_t done) {
  if (!enabled_) return;
  const absl::Time now = absl::Now();
  if (now - last_draw_ < absl::Milliseconds(100)) return;
  last_draw_ = now;
  std::fprintf(out_, "\r%s", Render(done, total_, now - start_, 30).c_str());
  std::fflush(out_);
}

void ProgressBar::Finish(uint64_t done) {
  if (!enabled_) return;
  std::fprintf(out_, "\r%s\n", Render(done, total_, absl::Now() - start_, 30).c_str());
  std::fflush(out_);
}

}  // namespace ssimd
