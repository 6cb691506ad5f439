#include "server/url_source.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/read_fd_for_test.h"

extern char** environ;

namespace ssimd {
namespace {

using ::testing::HasSubstr;

constexpr char kPython[] = "/usr/bin/python3";
constexpr char kMediaDir[] = "tests/data/ladder";
constexpr char kMediaFile[] = "h264_426x240.mp4";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// server/http_fixture.py in a child process, for the whole test program.
class HttpFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (access(kPython, X_OK) != 0) return;
    const std::string port_file = absl::StrCat(getenv("TEST_TMPDIR"), "/http_fixture_port");
    unlink(port_file.c_str());
    std::string script = "server/http_fixture.py";
    std::string root = kMediaDir;
    const char* argv[] = {kPython, script.c_str(), root.c_str(), port_file.c_str(), nullptr};
    if (posix_spawn(&pid_, kPython, nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
      pid_ = 0;
      return;
    }
    for (int i = 0; i < 200 && access(port_file.c_str(), R_OK) != 0; ++i) {
      absl::SleepFor(absl::Milliseconds(50));
    }
    base_ = absl::StrCat("http://127.0.0.1:", ReadFile(port_file));
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
      pid_ = 0;
    }
  }
  void SetUp() override {
    if (pid_ == 0) GTEST_SKIP() << kPython << " is missing: no local HTTP server to fetch from";
    ASSERT_NE(base_, "http://127.0.0.1:") << "the HTTP fixture did not start";
    // A proxy in the environment would make 127.0.0.1 unreachable.
    unsetenv("http_proxy");
    unsetenv("HTTP_PROXY");
    unsetenv("all_proxy");
    unsetenv("ALL_PROXY");
  }

  std::unique_ptr<UrlSource> Source(int64_t max_bytes = int64_t{1} << 20,
                                    absl::Duration stall_timeout = absl::Seconds(1)) {
    UrlSourceOptions options;
    options.allowed_prefixes = {absl::StrCat(base_, "/media/"),
                                absl::StrCat(base_, "/redirect"), absl::StrCat(base_, "/stall"),
                                absl::StrCat(base_, "/sized"), absl::StrCat(base_, "/unsized"),
                                absl::StrCat(base_, "/status")};
    options.max_bytes = max_bytes;
    options.stall_timeout = stall_timeout;
    options.total_timeout = absl::Seconds(20);
    auto source = UrlSource::Create(options);
    EXPECT_TRUE(source.ok()) << source.status();
    return source.ok() ? *std::move(source) : nullptr;
  }

  static pid_t pid_;
  static std::string base_;
};

pid_t HttpFixture::pid_ = 0;
std::string HttpFixture::base_;

TEST_F(HttpFixture, FetchesTheFileItself) {
  auto fd = Source()->Fetch(absl::StrCat(base_, "/media/", kMediaFile), "distorted_path");
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_EQ(ReadAndClose(*fd), ReadFile(absl::StrCat(kMediaDir, "/", kMediaFile)));
}

TEST_F(HttpFixture, FollowsARedirectThatStaysUnderAPrefix) {
  const std::string target = absl::StrCat(base_, "/media/", kMediaFile);
  auto fd = Source()->Fetch(absl::StrCat(base_, "/redirect?to=", target), "source_path");
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_EQ(ReadAndClose(*fd), ReadFile(absl::StrCat(kMediaDir, "/", kMediaFile)));
}

TEST_F(HttpFixture, ARedirectOutsideThePrefixesIsDenied) {
  // Same host and port, a path no prefix allows: refused before it is requested.
  const std::string url = absl::StrCat(base_, "/redirect?to=", base_, "/other/secret");
  auto fd = Source()->Fetch(url, "source_path");
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(fd.status().message(), HasSubstr("redirects to"));
  EXPECT_THAT(fd.status().message(), HasSubstr("--allow_url_prefix"));
}

TEST_F(HttpFixture, MissingFileIsNotFoundNamingTheUrl) {
  auto fd = Source()->Fetch(absl::StrCat(base_, "/media/nothing.mp4"), "distorted_path");
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(fd.status().message(), HasSubstr("distorted_path: \"http://127.0.0.1:"));
  EXPECT_THAT(fd.status().message(), HasSubstr("404"));
}

TEST_F(HttpFixture, OtherHttpErrorsAreAFailedPrecondition) {
  auto fd = Source()->Fetch(absl::StrCat(base_, "/status/503"), "distorted_path");
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fd.status().message(), HasSubstr("503"));
}

TEST_F(HttpFixture, AStalledTransferEndsWithDeadlineExceeded) {
  const absl::Time start = absl::Now();
  auto fd = Source()->Fetch(absl::StrCat(base_, "/stall"), "source_path");
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(fd.status().message(), HasSubstr("--url_stall_timeout"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(15));
}

TEST_F(HttpFixture, ACallThatEndedFetchesNothing) {
  // Allowed, but nothing listens on port 1: a request would fail with FAILED_PRECONDITION.
  UrlSourceOptions options;
  options.allowed_prefixes = {"http://127.0.0.1:1/media/"};
  auto source = UrlSource::Create(options);
  ASSERT_TRUE(source.ok()) << source.status();
  const FetchControl ended([] { return true; }, absl::Minutes(10));
  auto fd = (*source)->Fetch("http://127.0.0.1:1/media/a.mp4", "renditions[3].path", ended);
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kCancelled) << fd.status();
  EXPECT_THAT(fd.status().message(), HasSubstr("renditions[3].path: fetching \"http://"));
  EXPECT_THAT(fd.status().message(), HasSubstr("the call ended"));
}

TEST_F(HttpFixture, EndingTheCallStopsATransferUnderWay) {
  // The stall answer sends 16 bytes, then nothing for a minute; only the cancel can end it
  // before --url_stall_timeout (30 s here).
  std::atomic<bool> ended{false};
  const FetchControl control([&ended] { return ended.load(); }, absl::Minutes(10));
  std::thread cancel([&ended] {
    absl::SleepFor(absl::Milliseconds(300));
    ended.store(true);
  });
  const absl::Time start = absl::Now();
  auto fd = Source(int64_t{1} << 20, absl::Seconds(30))
                ->Fetch(absl::StrCat(base_, "/stall"), "source_path", control);
  const absl::Duration took = absl::Now() - start;
  cancel.join();
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kCancelled) << fd.status();
  EXPECT_GE(took, absl::Milliseconds(250));
  EXPECT_LT(took, absl::Seconds(1)) << "the transfer went on after its call ended";
}

TEST_F(HttpFixture, TheCallsTimeForFetchingBoundsEachFetch) {
  // --url_timeout (20 s) and --url_stall_timeout (30 s) are far; the call's 700 ms is not.
  const FetchControl control([] { return false; }, absl::Milliseconds(700));
  const absl::Time start = absl::Now();
  auto fd = Source(int64_t{1} << 20, absl::Seconds(30))
                ->Fetch(absl::StrCat(base_, "/stall"), "renditions[0].path", control);
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kDeadlineExceeded) << fd.status();
  EXPECT_THAT(fd.status().message(), HasSubstr("--url_call_timeout"));
  EXPECT_THAT(fd.status().message(), HasSubstr("700ms"));
  EXPECT_THAT(fd.status().message(), HasSubstr("renditions[0].path: "));
  EXPECT_GE(took, absl::Milliseconds(650));
  EXPECT_LT(took, absl::Seconds(2));
}

TEST_F(HttpFixture, ACallOutOfTimeFetchesNothingMore) {
  // The call's 1 s began 2 s ago, spent on earlier inputs.
  const FetchControl control([] { return false; }, absl::Seconds(1),
                             absl::Now() - absl::Seconds(2));
  auto fd = Source()->Fetch(absl::StrCat(base_, "/media/", kMediaFile), "renditions[4].path",
                            control);
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kDeadlineExceeded) << fd.status();
  EXPECT_THAT(fd.status().message(), HasSubstr("--url_call_timeout"));
  // With time left, the same fetch goes through.
  const FetchControl fresh([] { return false; }, absl::Seconds(10));
  auto ok = Source()->Fetch(absl::StrCat(base_, "/media/", kMediaFile), "renditions[4].path",
                            fresh);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ReadAndClose(*ok), ReadFile(absl::StrCat(kMediaDir, "/", kMediaFile)));
}

TEST_F(HttpFixture, MoreThanTheByteLimitIsRefusedWithOrWithoutALength) {
  for (const char* kind : {"sized", "unsized"}) {
    auto fd = Source(1000)->Fetch(absl::StrCat(base_, "/", kind, "/5000"), "source_path");
    EXPECT_EQ(fd.status().code(), absl::StatusCode::kResourceExhausted) << kind;
    EXPECT_THAT(fd.status().message(), HasSubstr("--max_url_bytes"));
  }
  auto fd = Source(1000)->Fetch(absl::StrCat(base_, "/unsized/1000"), "source_path");
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_EQ(ReadAndClose(*fd).size(), 1000u);
}

TEST_F(HttpFixture, UrlsOutsideThePrefixesAreDeniedWithoutAConnection) {
  auto source = Source();
  for (const std::string& url :
       {absl::StrCat(base_, "/other/x.mp4"), absl::StrCat(base_, "/media-private/x.mp4"),
        std::string("http://127.0.0.1:1/media/x.mp4"),
        absl::StrCat("https", base_.substr(4), "/media/", kMediaFile)}) {
    EXPECT_EQ(source->Fetch(url, "f").status().code(), absl::StatusCode::kPermissionDenied)
        << url;
  }
}

TEST(UrlPrefixTest, MatchesParsedHostsNotStrings) {
  UrlSourceOptions options;
  options.allowed_prefixes = {"https://allowed.example.com/media/",
                              "http://Files.Example.com:8080/renditions"};
  auto source = UrlSource::Create(options);
  ASSERT_TRUE(source.ok()) << source.status();
  const auto allowed = [&](const char* url) {
    absl::StatusOr<ParsedUrl> parsed = ParseHttpUrl(url);
    return parsed.ok() && (*source)->Allowed(*parsed);
  };
  EXPECT_TRUE(allowed("https://allowed.example.com/media/a.mp4"));
  EXPECT_TRUE(allowed("HTTPS://ALLOWED.example.com:443/media/sub/a.mp4?sig=1"));
  EXPECT_TRUE(allowed("http://files.example.com:8080/renditions/a.mp4"));
  EXPECT_TRUE(allowed("http://files.example.com:8080/renditions"));
  EXPECT_FALSE(allowed("https://allowed.example.com.evil.net/media/a.mp4"));
  EXPECT_FALSE(allowed("https://evil.net/https://allowed.example.com/media/a.mp4"));
  EXPECT_FALSE(allowed("https://allowed.example.com@evil.net/media/a.mp4"));
  EXPECT_FALSE(allowed("http://allowed.example.com/media/a.mp4"));
  EXPECT_FALSE(allowed("https://allowed.example.com:8443/media/a.mp4"));
  EXPECT_FALSE(allowed("https://allowed.example.com/media/../secret/a.mp4"));
  EXPECT_FALSE(allowed("https://allowed.example.com/media/%2e%2e/secret/a.mp4"));
  EXPECT_FALSE(allowed("https://allowed.example.com/mediax/a.mp4"));
  EXPECT_FALSE(allowed("http://files.example.com:8080/renditions-private/a.mp4"));
  EXPECT_FALSE(allowed("http://files.example.com/renditions/a.mp4"));
}

TEST(UrlPrefixTest, OnlyHttpAndHttpsAreUrls) {
  EXPECT_TRUE(LooksLikeUrl("HTTP://x/y"));
  EXPECT_FALSE(LooksLikeUrl("file:///etc/passwd"));
  EXPECT_FALSE(LooksLikeUrl("renditions/http://x"));
  EXPECT_FALSE(ParseHttpUrl("ftp://example.com/a").ok());
  EXPECT_FALSE(ParseHttpUrl("http://user:secret@example.com/a").ok());
}

TEST(UrlPrefixTest, TheCallTimeoutMustBePositive) {
  UrlSourceOptions options;
  options.allowed_prefixes = {"https://allowed.example.com/media/"};
  options.call_timeout = absl::ZeroDuration();
  EXPECT_EQ(UrlSource::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(UrlPrefixTest, BadPrefixesNameTheFlag) {
  for (const char* bad : {"ftp://example.com/", "example.com/media", "https://x/a?b=c"}) {
    UrlSourceOptions options;
    options.allowed_prefixes = {bad};
    auto source = UrlSource::Create(options);
    EXPECT_EQ(source.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(source.status().message(), HasSubstr("--allow_url_prefix")) << bad;
  }
}

}  // namespace
}  // namespace ssimd
