// Segmented decoding against one decoder, on files encoded here with short groups of pictures:
// H.264 and HEVC with closed groups (IDR split points) and open ones (recovery points and CRA
// pictures, which are not split points), 10-bit HEVC, VP9 with hidden reference frames. Every
// picture, in order, must equal the single decoder's, for 2 to 4 decoders and short and long
// segments, and files with split points must really be split. Also: a truncated file ends as
// with one decoder, and stopping early does not hang.
#include "engine/media/segmented_decoding.h"

#include <fcntl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/media/frame_planes.h"
#include "engine/media/segment_claim_book.h"
#include "engine/media/test_media.h"
#include "engine/media/video_decoder.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

struct Encoded {
  const char* name;  // file name, whose extension picks the container
  std::vector<std::string> codec_args;
  bool has_split_points;
};

const std::vector<Encoded>& Encodings() {
  static const auto* encodings = new std::vector<Encoded>{
      {"h264_closed.mp4", {"-c:v", "libx264", "-g", "7", "-bf", "2", "-pix_fmt", "yuv420p"}, true},
      {"h264_closed.ts", {"-c:v", "libx264", "-g", "9", "-bf", "3", "-pix_fmt", "yuv420p"}, true},
      {"h264_open.mkv",
       {"-c:v", "libx264", "-x264-params", "keyint=7:min-keyint=7:open-gop=1:scenecut=0", "-bf",
        "2", "-pix_fmt", "yuv420p"},
       false},
      {"hevc_closed.mkv",
       {"-c:v", "libx265", "-x265-params",
        "keyint=7:min-keyint=7:open-gop=0:scenecut=0:log-level=error", "-pix_fmt", "yuv420p"},
       true},
      {"hevc10_closed.mp4",
       {"-c:v", "libx265", "-x265-params",
        "keyint=8:min-keyint=8:open-gop=0:scenecut=0:log-level=error", "-pix_fmt",
        "yuv420p10le"},
       true},
      {"hevc_open.mkv",
       {"-c:v", "libx265", "-x265-params",
        "keyint=7:min-keyint=7:open-gop=1:scenecut=0:log-level=error", "-pix_fmt", "yuv420p"},
       false},
      {"vp9.webm",
       {"-c:v", "libvpx-vp9", "-g", "7", "-deadline", "good", "-cpu-used", "8", "-auto-alt-ref",
        "1", "-lag-in-frames", "6", "-pix_fmt", "yuv420p"},
       true},
  };
  return *encodings;
}

// The file `name` encoded from a moving test pattern, made once per test run.
std::string EncodedFile(const Encoded& e) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", e.name);
  if (::access(path.c_str(), R_OK) == 0) return path;
  std::vector<std::string> args = {"-f", "lavfi", "-i", "testsrc2=size=176x96:rate=24",
                                   "-frames:v", "61"};
  args.insert(args.end(), e.codec_args.begin(), e.codec_args.end());
  const absl::Status made = RunFfmpegToFile(args, path);
  EXPECT_TRUE(made.ok()) << made;
  return path;
}

std::unique_ptr<VideoDecoder> Open(const std::string& path) {
  auto decoder = VideoDecoder::OpenFd(::open(path.c_str(), O_RDONLY), path, DecodeLimits());
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  return decoder.ok() ? *std::move(decoder) : nullptr;
}

// Every picture as packed bytes, and how the file ended.
struct Decoded {
  std::vector<std::string> pictures;
  absl::Status end;
};

template <typename Source>
Decoded DecodeAll(Source& source) {
  Decoded out;
  while (true) {
    absl::StatusOr<const AVFrame*> picture = source.Next();
    if (!picture.ok()) {
      out.end = picture.status();
      return out;
    }
    if (*picture == nullptr) return out;
    out.pictures.push_back(PackedPicture(**picture));
  }
}

class SegmentedDecodingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveFfmpegCommand()) GTEST_SKIP() << "no ffmpeg command to encode test files";
  }
};

TEST_F(SegmentedDecodingTest, PicturesAreTheOneDecodersInOrder) {
  for (const Encoded& e : Encodings()) {
    const std::string path = EncodedFile(e);
    std::unique_ptr<VideoDecoder> single = Open(path);
    ASSERT_NE(single, nullptr);
    const Decoded expected = DecodeAll(*single);
    ASSERT_TRUE(expected.end.ok()) << e.name << ": " << expected.end;
    ASSERT_EQ(expected.pictures.size(), 61u) << e.name;
    for (int decoders : {2, 3, 4}) {
      for (int min_packets : {1, 10}) {
        SCOPED_TRACE(absl::StrCat(e.name, ": ", decoders, " decoders, segments of at least ",
                                  min_packets, " packets"));
        SegmentedDecodingOptions options;
        options.decoders = decoders;
        options.min_segment_packets = min_packets;
        options.pictures_ahead = min_packets == 1 ? 1 : 8;  // 1: every decoder waits its turn
        std::unique_ptr<VideoDecoder> first = Open(path);
        auto segmented = SegmentedDecoding::Start(first, DecodeLimits(), options);
        ASSERT_TRUE(segmented.ok()) << segmented.status();
        const Decoded got = DecodeAll(**segmented);
        ASSERT_TRUE(got.end.ok()) << got.end;
        ASSERT_EQ(got.pictures.size(), expected.pictures.size());
        for (size_t i = 0; i < got.pictures.size(); ++i) {
          ASSERT_TRUE(got.pictures[i] == expected.pictures[i]) << "picture " << i;
        }
        EXPECT_EQ((*segmented)->frames_decoded(), 61u);
        uint64_t decoded_segments = 0;
        for (uint64_t n : (*segmented)->segments_by_decoder()) decoded_segments += n;
        EXPECT_EQ(decoded_segments, (*segmented)->segments()) << "each segment one decoder's";
        if (e.has_split_points) {
          // 61 pictures with a group every 7 to 9: split wherever a segment is long enough.
          EXPECT_GE((*segmented)->segments(), min_packets == 1 ? 6u : 4u);
        } else {
          EXPECT_EQ((*segmented)->segments(), 1u) << "open groups are not split points";
        }
        EXPECT_EQ((*segmented)->decode_backend(), "cpu");
      }
    }
  }
}

// Claims through a book, as SegmentedDecoding makes them, for decoders driven by hand here.
class BookClaims : public VideoDecoder::SegmentClaims {
 public:
  uint64_t ClaimNext(int worker, uint64_t reached) override {
    return book.Claim(worker, reached);
  }
  SegmentClaimBook book;
};

// Pictures of one share, by segment.
struct Share {
  std::map<uint64_t, std::vector<std::string>> by_segment;
  absl::Status end;
};

bool NextOfShare(VideoDecoder& decoder, Share& share) {
  absl::StatusOr<const AVFrame*> picture = decoder.Next();
  if (!picture.ok()) share.end = picture.status();
  if (!picture.ok() || *picture == nullptr) return false;
  share.by_segment[decoder.segment()].push_back(PackedPicture(**picture));
  return true;
}

TEST_F(SegmentedDecodingTest, ADecoderDoneWithItsSegmentTakesTheNextFreeOne) {
  const std::string path = EncodedFile(Encodings()[0]);  // an IDR every 7 pictures
  std::unique_ptr<VideoDecoder> single = Open(path);
  ASSERT_NE(single, nullptr);
  const Decoded expected = DecodeAll(*single);
  ASSERT_TRUE(expected.end.ok()) << expected.end;
  // pace: how many pictures decoder 0 decodes for each one of decoder 1's. Decoder 1 never
  // getting a turn until decoder 0 is done (0) takes it all to decoder 0.
  for (int pace : {0, 1, 3}) {
    SCOPED_TRACE(absl::StrCat("pace ", pace));
    BookClaims claims;
    std::unique_ptr<VideoDecoder> decoders[2] = {Open(path), Open(path)};
    Share shares[2];
    for (int i = 0; i < 2; ++i) {
      ASSERT_NE(decoders[i], nullptr);
      decoders[i]->DecodeSegmentShare({i, 2, /*min_packets=*/1, &claims});
    }
    bool more[2] = {true, true};
    while (more[0] || more[1]) {
      for (int k = 0; more[0] && (pace == 0 || k < pace); ++k) {
        more[0] = NextOfShare(*decoders[0], shares[0]);
      }
      if (more[1]) more[1] = NextOfShare(*decoders[1], shares[1]);
    }
    ASSERT_TRUE(shares[0].end.ok()) << shares[0].end;
    ASSERT_TRUE(shares[1].end.ok()) << shares[1].end;
    // Put back by segment, the pictures are the one decoder's; each segment has one decoder.
    std::vector<std::string> merged;
    for (uint64_t segment = 0; segment < decoders[0]->segments_seen(); ++segment) {
      const bool in0 = shares[0].by_segment.count(segment) > 0;
      const bool in1 = shares[1].by_segment.count(segment) > 0;
      ASSERT_NE(in0, in1) << "segment " << segment;
      for (const std::string& p : shares[in0 ? 0 : 1].by_segment[segment]) merged.push_back(p);
    }
    ASSERT_EQ(merged.size(), expected.pictures.size());
    EXPECT_TRUE(merged == expected.pictures);
    EXPECT_GE(decoders[0]->segments_seen(), 8u);
    if (pace == 0) {
      EXPECT_TRUE(shares[1].by_segment.empty()) << "decoder 0 took every segment";
    } else {
      // The faster decoder took more of the file, the slower one some.
      EXPECT_GT(shares[0].by_segment.size(), shares[1].by_segment.size());
      EXPECT_FALSE(shares[1].by_segment.empty());
    }
  }
}

// The checked-in files the GPU test decodes in segments on an engine (tests/data/segments):
// here, on the CPU, no ffmpeg command needed.
TEST(SegmentedDecodingFilesTest, CheckedInFilesSplitInFourAndDecodeAsOne) {
  for (const char* file : {"h264_640x360_g6.mp4", "hevc10_960x540_g6.mkv"}) {
    SCOPED_TRACE(file);
    const std::string path = absl::StrCat("tests/data/segments/", file);
    std::unique_ptr<VideoDecoder> single = Open(path);
    ASSERT_NE(single, nullptr);
    const Decoded expected = DecodeAll(*single);
    ASSERT_TRUE(expected.end.ok()) << expected.end;
    SegmentedDecodingOptions options;
    options.decoders = 3;
    options.min_segment_packets = 1;
    std::unique_ptr<VideoDecoder> first = Open(path);
    auto segmented = SegmentedDecoding::Start(first, DecodeLimits(), options);
    ASSERT_TRUE(segmented.ok()) << segmented.status();
    const Decoded got = DecodeAll(**segmented);
    ASSERT_TRUE(got.end.ok()) << got.end;
    EXPECT_EQ(got.pictures.size(), 24u);
    EXPECT_TRUE(got.pictures == expected.pictures);
    EXPECT_EQ((*segmented)->segments(), 4u);
  }
}

TEST_F(SegmentedDecodingTest, ATruncatedFileEndsAsWithOneDecoder) {
  const std::string whole = EncodedFile(Encodings()[1]);  // MPEG-TS: readable when cut
  absl::StatusOr<std::string> bytes = ReadWholeFile(whole);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::string cut = bytes->substr(0, bytes->size() * 3 / 5);
  auto single = VideoDecoder::OpenMemory(cut, "cut.ts", DecodeLimits());
  ASSERT_TRUE(single.ok()) << single.status();
  const Decoded expected = DecodeAll(**single);
  auto first = VideoDecoder::OpenMemory(cut, "cut.ts", DecodeLimits());
  ASSERT_TRUE(first.ok()) << first.status();
  SegmentedDecodingOptions options;
  options.decoders = 3;
  options.min_segment_packets = 1;
  std::unique_ptr<VideoDecoder> decoder = *std::move(first);
  auto segmented = SegmentedDecoding::Start(decoder, DecodeLimits(), options);
  ASSERT_TRUE(segmented.ok()) << segmented.status();
  const Decoded got = DecodeAll(**segmented);
  EXPECT_EQ(got.end.code(), expected.end.code()) << got.end << " vs " << expected.end;
  // The same error; before it, the whole file's first pictures in order, never more than one
  // decoder gives. (A decoder goes from one of its segments to the next it claims without a
  // drain, so a damaged start of that next segment can cost it the last pictures of the one
  // before, whichever that was: the error then stands there, possibly well before where one
  // decoder stops.)
  std::unique_ptr<VideoDecoder> reference = Open(whole);
  ASSERT_NE(reference, nullptr);
  const Decoded intact = DecodeAll(*reference);
  EXPECT_LE(got.pictures.size(), expected.pictures.size());
  EXPECT_LT(expected.pictures.size(), intact.pictures.size());
  for (size_t i = 0; i < got.pictures.size(); ++i) {
    ASSERT_TRUE(got.pictures[i] == intact.pictures[i]) << "picture " << i;
  }
  for (size_t i = 0; i < expected.pictures.size(); ++i) {
    ASSERT_TRUE(expected.pictures[i] == intact.pictures[i]) << "picture " << i;
  }
  // Once ended, it stays ended.
  absl::StatusOr<const AVFrame*> again = (*segmented)->Next();
  EXPECT_EQ(again.status().code(), expected.end.code());
}

TEST_F(SegmentedDecodingTest, StoppingEarlyDoesNotWaitForTheFile) {
  const std::string path = EncodedFile(Encodings()[0]);
  SegmentedDecodingOptions options;
  options.decoders = 4;
  options.min_segment_packets = 1;
  options.pictures_ahead = 2;
  std::unique_ptr<VideoDecoder> first = Open(path);
  auto segmented = SegmentedDecoding::Start(first, DecodeLimits(), options);
  ASSERT_TRUE(segmented.ok()) << segmented.status();
  EXPECT_EQ(first, nullptr) << "taken over";
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<const AVFrame*> picture = (*segmented)->Next();
    ASSERT_TRUE(picture.ok() && *picture != nullptr);
  }
  segmented->reset();  // joins four threads, three of them waiting for their turn
}

TEST_F(SegmentedDecodingTest, BadOptionsAreRefused) {
  const std::string path = EncodedFile(Encodings()[0]);
  SegmentedDecodingOptions options;
  options.decoders = 1;
  std::unique_ptr<VideoDecoder> first = Open(path);
  EXPECT_EQ(SegmentedDecoding::Start(first, DecodeLimits(), options).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_NE(first, nullptr) << "a refused start leaves the decoder with the caller";
  absl::StatusOr<const AVFrame*> picture = first->Next();
  EXPECT_TRUE(picture.ok() && *picture != nullptr);
  std::unique_ptr<VideoDecoder> none;
  options.decoders = 2;
  EXPECT_EQ(SegmentedDecoding::Start(none, DecodeLimits(), options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ssimd
