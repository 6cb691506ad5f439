#include "engine/gpu/device_arch.h"

#include "gtest/gtest.h"

namespace ssimd {
namespace {

constexpr std::string_view kRocmTargets = "gfx90a,gfx942,gfx1030,gfx1100";
constexpr std::string_view kNvidiaTargets = "sm_80,sm_90,compute_90";

TEST(DeviceArchTest, TargetFeaturesAreNotPartOfTheProcessor) {
  EXPECT_EQ(ProcessorOf("gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(ProcessorOf("gfx1100"), "gfx1100");
  EXPECT_EQ(ProcessorOf("sm_90"), "sm_90");
}

TEST(DeviceArchTest, AmdDevicesNeedTheirOwnProcessor) {
  EXPECT_TRUE(HasCodeFor("gfx90a:sramecc+:xnack-", kRocmTargets));  // MI200
  EXPECT_TRUE(HasCodeFor("gfx942:sramecc+:xnack-", kRocmTargets));  // MI300
  EXPECT_TRUE(HasCodeFor("gfx1100", kRocmTargets));                 // RDNA3
  // A neighbour's ISA does not run: gfx940 and gfx941 are not gfx942, gfx1101 is not gfx1100.
  EXPECT_FALSE(HasCodeFor("gfx940:sramecc+:xnack-", kRocmTargets));
  EXPECT_FALSE(HasCodeFor("gfx1101", kRocmTargets));
  EXPECT_FALSE(HasCodeFor("gfx9", kRocmTargets));
  EXPECT_FALSE(HasCodeFor("gfx908", "gfx90a"));
}

TEST(DeviceArchTest, NvidiaCubinsRunOnLaterMinorsOfTheirMajorAndPtxOnAnythingNewer) {
  EXPECT_TRUE(HasCodeFor("sm_80", kNvidiaTargets));
  EXPECT_TRUE(HasCodeFor("sm_86", kNvidiaTargets));   // the sm_80 cubin
  EXPECT_TRUE(HasCodeFor("sm_90", kNvidiaTargets));
  EXPECT_TRUE(HasCodeFor("sm_100", kNvidiaTargets));  // compute_90 PTX, compiled by the driver
  EXPECT_FALSE(HasCodeFor("sm_75", kNvidiaTargets));  // older than anything built
  EXPECT_FALSE(HasCodeFor("sm_100", "sm_80,sm_90"));  // no PTX: no forward compatibility
  EXPECT_FALSE(HasCodeFor("sm_89", "sm_90"));         // a cubin never runs on an older minor
}

TEST(DeviceArchTest, NothingRunsOnABuildWithoutDeviceCode) {
  EXPECT_FALSE(HasCodeFor("gfx942", ""));
  EXPECT_FALSE(HasCodeFor("sm_90", ""));
  EXPECT_FALSE(HasCodeFor("", kRocmTargets));
}

TEST(DeviceArchTest, AmdAndNvidiaNamesNeverMatchEachOther) {
  EXPECT_FALSE(HasCodeFor("sm_90", kRocmTargets));
  EXPECT_FALSE(HasCodeFor("gfx90a", kNvidiaTargets));
}

}  // namespace
}  // namespace ssimd
