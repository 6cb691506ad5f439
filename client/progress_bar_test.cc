#include "client/progress_bar.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(ProgressBarTest, RendersBarAndRate) {
  EXPECT_EQ(ProgressBar::Render(5, 10, absl::Seconds(2), 10), "[=====>    ] 5/10 frames  2.5 fps");
  EXPECT_EQ(ProgressBar::Render(10, 10, absl::Seconds(1), 4), "[====] 10/10 frames  10.0 fps");
  EXPECT_EQ(ProgressBar::Render(3, std::nullopt, absl::ZeroDuration(), 4), "3 frames  0.0 fps");
}

TEST(ProgressBarTest, DisabledWritesNothing) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  {
    ProgressBar bar(out, false, 10);
    bar.Update(1);
    bar.Finish(10);
  }
  std::fclose(out);
  EXPECT_EQ(size, 0u);
  free(buffer);
}

TEST(ProgressBarTest, EnabledEndsTheLine) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  {
    ProgressBar bar(out, true, 4);
    bar.Update(1);
    bar.Finish(4);
  }
  std::fclose(out);
  const std::string text(buffer, size);
  free(buffer);
  EXPECT_THAT(text, ::testing::StartsWith("\r["));
  EXPECT_THAT(text, ::testing::EndsWith("\n"));
  EXPECT_THAT(text, ::testing::HasSubstr("4/4 frames"));
}

}  // namespace
}  // namespace ssimd
