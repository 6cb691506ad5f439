// The claim book alone: segments go out in order to whoever asks, never behind the asker's
// packets, and the reader finds each one's decoder until it forgets the segments behind it.
#include "engine/media/segment_claim_book.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(SegmentClaimBookTest, GivesSegmentsOutInOrderOfAsking) {
  SegmentClaimBook book;
  EXPECT_EQ(book.Claim(/*worker=*/2, /*reached=*/0), 0u);
  EXPECT_EQ(book.Claim(0, 0), 1u);  // decoder 0 asked later, at the file's start too
  EXPECT_EQ(book.Claim(1, 0), 2u);
  // Decoder 2 is done with segment 0 first and takes the next free one.
  EXPECT_EQ(book.Claim(2, 1), 3u);
  EXPECT_EQ(book.OwnerOf(0), 2);
  EXPECT_EQ(book.OwnerOf(1), 0);
  EXPECT_EQ(book.OwnerOf(2), 1);
  EXPECT_EQ(book.OwnerOf(3), 2);
  EXPECT_EQ(book.OwnerOf(4), std::nullopt);
  // Segment 4 is the next free one, whoever asks from wherever behind it.
  EXPECT_EQ(book.Claim(1, 0), 4u);
}

TEST(SegmentClaimBookTest, ALoneFastDecoderTakesTheSegmentsOneAfterAnother) {
  SegmentClaimBook book;
  EXPECT_EQ(book.Claim(0, 0), 0u);
  EXPECT_EQ(book.Claim(1, 0), 1u);
  // Decoder 1 is slow: decoder 0 keeps asking as it reaches each next segment.
  for (uint64_t reached = 1; reached < 6; ++reached) {
    EXPECT_EQ(book.Claim(0, reached + 1), reached + 1);
  }
  for (uint64_t segment = 2; segment <= 6; ++segment) EXPECT_EQ(book.OwnerOf(segment), 0);
  EXPECT_EQ(book.OwnerOf(1), 1);
}

TEST(SegmentClaimBookTest, NeverGivesASegmentBehindTheAsker) {
  SegmentClaimBook book;
  EXPECT_EQ(book.Claim(0, 0), 0u);
  // Segments 1 to 4 were passed over by every decoder: nobody holds them.
  EXPECT_EQ(book.Claim(1, 5), 5u);
  for (uint64_t segment = 1; segment < 5; ++segment) {
    EXPECT_EQ(book.OwnerOf(segment), std::nullopt) << segment;
  }
  EXPECT_EQ(book.OwnerOf(5), 1);
  EXPECT_EQ(book.Claim(0, 1), 6u);
}

TEST(SegmentClaimBookTest, ForgetsWhatTheReaderPassed) {
  SegmentClaimBook book;
  for (int worker = 0; worker < 3; ++worker) book.Claim(worker, 0);
  book.ForgetBefore(2);
  EXPECT_EQ(book.OwnerOf(0), std::nullopt);
  EXPECT_EQ(book.OwnerOf(1), std::nullopt);
  EXPECT_EQ(book.OwnerOf(2), 2);
  // Later claims land where they belong after forgetting.
  EXPECT_EQ(book.Claim(0, 1), 3u);
  EXPECT_EQ(book.OwnerOf(3), 0);
  book.ForgetBefore(10);  // past everything claimed
  EXPECT_EQ(book.OwnerOf(3), std::nullopt);
  EXPECT_EQ(book.Claim(1, 4), 4u);
  EXPECT_EQ(book.OwnerOf(4), 1);
}

}  // namespace
}  // namespace ssimd
