#include "client/local_decoding_program.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

TEST(LocalDecodingProgramTest, LiesBesideThisProgram) {
  EXPECT_EQ(LocalDecodingProgram("/usr/local/bin/ssimd-score"),
            "/usr/local/bin/ssimd-score-frames");
  EXPECT_EQ(LocalDecodingProgram("ssimd-score"), "./ssimd-score-frames");
}

}  // namespace
}  // namespace ssimd
