// The VA-API profile table without a device: which decoder each profile is, and which layouts a
// profile keeps of what its driver reports. The probe itself needs a VA-API device
// (engine/media:hw_decode_test lists the table where one opens).
#include "engine/media/vaapi_caps.h"

#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::StrEq;

TEST(VaapiCapsTest, ProfilesNameFfmpegsDecoders) {
  EXPECT_THAT(VaapiProfileCodec(VAProfileH264High), StrEq("h264"));
  EXPECT_THAT(VaapiProfileCodec(VAProfileH264ConstrainedBaseline), StrEq("h264"));
  EXPECT_THAT(VaapiProfileCodec(VAProfileHEVCMain10), StrEq("hevc"));
  EXPECT_THAT(VaapiProfileCodec(VAProfileVP9Profile2), StrEq("vp9"));
  EXPECT_THAT(VaapiProfileCodec(VAProfileAV1Profile0), StrEq("av1"));
  EXPECT_THAT(VaapiProfileCodec(VAProfileMPEG2Main), StrEq("mpeg2video"));
  EXPECT_THAT(VaapiProfileCodec(VAProfileVC1Main), StrEq("wmv3"));
  EXPECT_EQ(VaapiProfileCodec(VAProfileH264StereoHigh), nullptr);
  EXPECT_EQ(VaapiProfileCodec(VAProfileNone), nullptr);
}

TEST(VaapiCapsTest, LayoutsAreWhatTheProfileDefinesAndTheDriverReports) {
  // HEVC Main 10 decodes 4:2:0 10-bit; a driver that also lists 8-bit render targets for it does
  // not make it an 8-bit entry (8-bit HEVC is Main's).
  EXPECT_THAT(
      VaapiProfileLayouts(VAProfileHEVCMain10, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10),
      ElementsAre(Pair(420, 10)));
  // VP9 profile 2 carries 10 and 12 bits; a driver without 12-bit targets decodes 10 only.
  EXPECT_THAT(VaapiProfileLayouts(VAProfileVP9Profile2, VA_RT_FORMAT_YUV420_10),
              ElementsAre(Pair(420, 10)));
  // A driver that states no render-target formats: every layout of the profile.
  EXPECT_THAT(VaapiProfileLayouts(VAProfileVP9Profile2, VA_ATTRIB_NOT_SUPPORTED),
              ElementsAre(Pair(420, 10), Pair(420, 12)));
  EXPECT_THAT(VaapiProfileLayouts(VAProfileAV1Profile1, VA_RT_FORMAT_YUV444 |
                                                           VA_RT_FORMAT_YUV444_10 |
                                                           VA_RT_FORMAT_YUV420),
              ElementsAre(Pair(444, 8), Pair(444, 10)));
  EXPECT_THAT(VaapiProfileLayouts(VAProfileH264High, VA_RT_FORMAT_YUV420_10), IsEmpty());
  EXPECT_THAT(VaapiProfileLayouts(VAProfileH264StereoHigh, VA_RT_FORMAT_YUV420), IsEmpty());
}

TEST(VaapiCapsTest, NoDeviceIsAnUnknownTable) {
  const DecodeCaps caps = ProbeVaapiCaps(nullptr);
  EXPECT_FALSE(caps.known());
  EXPECT_TRUE(caps.profiles.empty());
}

}  // namespace
}  // namespace ssimd
