#include "client/channel_config.h"

#include "gmock/gmock.h"
#include "grpcpp/support/validate_service_config.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

TEST(ChannelTargetTest, SingleAddressesAndUrisPassThrough) {
  EXPECT_EQ(*ChannelTarget("127.0.0.1:50051"), "127.0.0.1:50051");
  EXPECT_EQ(*ChannelTarget("ssimd:50051"), "ssimd:50051");
  EXPECT_EQ(*ChannelTarget("dns:///ssimd.ssimd.svc.cluster.local:50051"),
            "dns:///ssimd.ssimd.svc.cluster.local:50051");
  EXPECT_EQ(*ChannelTarget("ipv4:10.0.0.1:1,10.0.0.2:2"), "ipv4:10.0.0.1:1,10.0.0.2:2");
}

TEST(ChannelTargetTest, CommaListsBecomeAddressTargets) {
  EXPECT_EQ(*ChannelTarget("127.0.0.1:1, 127.0.0.1:2,127.0.0.1:3,"),
            "ipv4:127.0.0.1:1,127.0.0.1:2,127.0.0.1:3");
  EXPECT_EQ(*ChannelTarget("[::1]:5000,[fe80::1]:5001"), "ipv6:[::1]:5000,[fe80::1]:5001");
}

TEST(ChannelTargetTest, BadCommaListsSayWhatToWrite) {
  auto name = ChannelTarget("ssimd-0:50051,ssimd-1:50051");
  EXPECT_EQ(name.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(name.status().message(), HasSubstr("dns:///NAME:PORT"));
  EXPECT_THAT(ChannelTarget("10.0.0.1,10.0.0.2:1").status().message(), HasSubstr("no port"));
  EXPECT_THAT(ChannelTarget("10.0.0.1:0,10.0.0.2:1").status().message(),
              HasSubstr("1 to 65535"));
  EXPECT_THAT(ChannelTarget("10.0.0.1:1,[::1]:2").status().message(),
              HasSubstr("all IPv4 or all IPv6"));
  EXPECT_THAT(ChannelTarget("300.0.0.1:1,10.0.0.1:2").status().message(),
              HasSubstr("not one"));
  EXPECT_EQ(ChannelTarget(" ").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ChannelTarget(",,").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ChannelTargetTest, OnlyListsAndDnsUrisAreBalanced) {
  EXPECT_TRUE(TargetMayNameManyServers("dns:///ssimd:50051"));
  EXPECT_TRUE(TargetMayNameManyServers("ipv4:127.0.0.1:1,127.0.0.1:2"));
  EXPECT_FALSE(TargetMayNameManyServers("ipv4:127.0.0.1:1"));
  EXPECT_FALSE(TargetMayNameManyServers("127.0.0.1:50051"));
}

TEST(ServiceConfigTest, BothConfigsAreValidForGrpc) {
  for (bool balance : {false, true}) {
    const std::string json = ServiceConfigJson(balance);
    EXPECT_EQ(grpc::experimental::ValidateServiceConfigJSON(json), "") << json;
    EXPECT_THAT(json, HasSubstr(R"("method":"ScorePair")"));
    EXPECT_THAT(json, HasSubstr(R"("method":"ScoreLadder")"));
    EXPECT_THAT(json, ::testing::Not(HasSubstr("ScoreClip")));
    EXPECT_EQ(json.find("round_robin") != std::string::npos, balance);
    EXPECT_EQ(json.find("healthCheckConfig") != std::string::npos, balance);
  }
}

}  // namespace
}  // namespace ssimd
