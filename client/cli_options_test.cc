#include "client/cli_options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<CliOptions> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "ssimd-score");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return ParseCliOptions(static_cast<int>(args.size()), argv.data());
}

TEST(CliOptionsTest, LibvmafStyleCommandLine) {
  auto o = Parse({"-r", "ref.yuv", "-d", "dis.yuv", "-w", "1920", "-h", "1080", "-p", "420", "-b",
                  "10", "--feature", "float_ssim=enable_db=true", "--feature", "ssim", "-n",
                  "--precision", "max", "--json", "-o", "out.json", "--threads", "4", "-q",
                  "--server", "10.0.0.1:7000", "--backend", "cpu", "--frame_cnt", "5"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->reference, "ref.yuv");
  EXPECT_EQ(o->distorted, "dis.yuv");
  EXPECT_EQ(*o->width, 1920);
  EXPECT_EQ(*o->height, 1080);
  EXPECT_EQ(*o->bit_depth, 10);
  EXPECT_EQ(*o->chroma, ChromaFormat::k420);
  EXPECT_EQ(o->features, (std::vector<std::string>{"float_ssim=enable_db=true", "ssim"}));
  EXPECT_TRUE(o->json);
  EXPECT_EQ(o->output, "out.json");
  EXPECT_EQ(o->client.target, "10.0.0.1:7000");
  EXPECT_EQ(o->backend, v1::BACKEND_CPU);
  EXPECT_EQ(o->frame_cnt, 5u);
  EXPECT_FALSE(o->progress);
}

TEST(CliOptionsTest, ModelIsTheVmafFeature) {
  auto o = Parse({"-r", "a.y4m", "-d", "b.y4m", "--feature", "psnr", "-m",
                  "version=vmaf_4k_v0.6.1:enable_transform"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->features,
            (std::vector<std::string>{
                "psnr", "vmaf=model=vmaf_4k_v0.6.1:enable_transform=true:disable_clip=false"}));
  EXPECT_THAT(Parse({"-r", "a", "-d", "b", "-m", "path=/x/model.json"}).status().message(),
              HasSubstr("version=NAME"));
  EXPECT_THAT(Parse({"-r", "a", "-d", "b", "-m", "version=vmaf_v0.6.1", "--model",
                     "version=vmaf_v0.6.1neg"})
                  .status()
                  .message(),
              HasSubstr("one --model"));
}

TEST(CliOptionsTest, Defaults) {
  auto o = Parse({"--reference", "a.y4m", "--distorted", "b.y4m"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->width.has_value());
  EXPECT_EQ(o->features, std::vector<std::string>{"float_ssim"});
  EXPECT_FALSE(o->json);
  EXPECT_EQ(o->client.target, "127.0.0.1:50051");
  EXPECT_EQ(o->precision.digits, 17);
  // -o alone means JSON, libvmaf's structured output.
  EXPECT_TRUE(Parse({"-r", "a", "-d", "b", "-o", "x.json"})->json);
}

TEST(CliOptionsTest, ErrorsNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{"-r", "a", "-d", "b", "-b", "7"}, "-b/--bitdepth: expected 8, 10, 12 or 16, got \"7\""},
      {{"-r", "a", "-d", "b", "-p", "411"}, "-p/--pixel_format: expected 420, 422, 444 or 400"},
      {{"-r", "a", "-d", "b", "-w", "0"}, "-w/--width: expected a positive number"},
      {{"-r", "a"}, "both the reference (-r) and the distorted (-d) video are required"},
      {{"-r", "a", "-d", "b", "--backend", "tpu"}, "--backend: expected auto, gpu or cpu"},
      {{"-r", "a", "-d", "b", "--bogus"}, "unknown option"},
      {{"-r", "a", "-d", "b", "-m", "vmaf_v0.6.1"}, "-m/--model"},
      {{"-r", "a", "-d", "b", "--precision", "x"}, "--precision"},
      {{"-r", "a", "-d", "b", "--timeout", "soon"}, "--timeout"},
      {{"-r", "a", "-d", "b", "stray"}, "unexpected argument"},
      {{"-r", "a", "-d", "b", "--label", "novalue"}, "--label: expected KEY=VALUE"},
      {{"-r", "a", "-d"}, "needs a value"},
      {{"--ladder_source", "src.y4m"}, "a ladder needs its source (-r SRC) and at least one"},
      {{"--rendition", "a=a.mp4"}, "a ladder needs its source (-r SRC) and at least one"},
      {{"--ladder_source", "s", "--rendition", "a"}, "--rendition: expected NAME=FILE"},
      {{"--ladder", "-r", "s", "-d", "a.mp4"}, "-d: expected NAME=FILE, got \"a.mp4\""},
      {{"--ladder", "-d", "a=a.mp4"}, "a ladder needs its source (-r SRC)"},
      {{"-r", "a", "-d", "b", "-d", "c"}, "-d: one distorted video per run"},
      {{"-r", "a", "-d", "b", "--spread"}, "--spread: spreads a ladder's renditions"},
      {{"-r", "a", "-d", "b", "--scaler", "sinc"}, "--scaler: "},
      {{"-r", "a", "-d", "b", "--transport", "ftp"}, "--transport: expected auto, server_files"},
  };
  for (const Case& c : cases) {
    auto o = Parse(c.args);
    ASSERT_FALSE(o.ok()) << c.message;
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(o.status().message()), HasSubstr(c.message));
  }
}

TEST(CliOptionsTest, LadderSourceAndRenditionMeanALadderOfServerFiles) {
  auto o = Parse({"--ladder_source", "src.y4m", "--rendition", "low=low.mp4", "--rendition",
                  "high=dir/high=1.mp4", "--spread", "--server", "127.0.0.1:1,127.0.0.1:2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->ladder);
  EXPECT_EQ(o->reference, "src.y4m");
  EXPECT_EQ(o->transport, Transport::kServerFiles);
  using Rung = std::pair<std::string, std::string>;
  EXPECT_EQ(o->renditions, (std::vector<Rung>{{"low", "low.mp4"}, {"high", "dir/high=1.mp4"}}));
  EXPECT_TRUE(o->spread);
}

TEST(CliOptionsTest, LadderTakesTheSourceAsRAndRenditionsAsD) {
  auto o = Parse({"--ladder", "-r", "src.mkv", "-d", "720p=h264_1280x720.mp4", "-d",
                  "540p=vp9_960x540.webm", "--scaler", "lanczos", "--accurate_rnd"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->ladder);
  EXPECT_EQ(o->reference, "src.mkv");
  EXPECT_TRUE(o->distorted.empty());
  using Rung = std::pair<std::string, std::string>;
  EXPECT_EQ(o->renditions, (std::vector<Rung>{{"720p", "h264_1280x720.mp4"},
                                              {"540p", "vp9_960x540.webm"}}));
  EXPECT_EQ(o->transport, Transport::kAuto);
  EXPECT_EQ(o->scaler.kind, ScalerKind::kLanczos);
  EXPECT_TRUE(o->scaler.accurate_rounding);
}

TEST(CliOptionsTest, EncodedFilesNeedNoGeometryAndScaleBicubicByDefault) {
  auto o = Parse({"-r", "src.mkv", "-d", "h264_960x540.mp4", "--transport", "frames"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->distorted, "h264_960x540.mp4");
  EXPECT_FALSE(o->width.has_value());
  EXPECT_EQ(o->scaler.kind, ScalerKind::kBicubic);
  EXPECT_FALSE(o->scaler.accurate_rounding);
  EXPECT_EQ(o->transport, Transport::kFrames);
  auto files = Parse({"-r", "a.y4m", "-d", "b.mp4", "--server_files"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(files->transport, Transport::kServerFiles);
}

TEST(CliOptionsTest, Help) {
  auto o = Parse({"--help"});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->help);
  EXPECT_THAT(CliUsage(), HasSubstr("--feature"));
}

}  // namespace
}  // namespace ssimd
