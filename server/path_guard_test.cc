#include "server/path_guard.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;

class PathGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    // One directory per test: the links below cannot be created twice.
    static int counter = 0;
    base_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/path_guard_", ::getpid(), "_", ++counter);
    root_ = base_ + "/root";
    ::mkdir(base_.c_str(), 0755);
    ::mkdir(root_.c_str(), 0755);
    ::mkdir((root_ + "/clips").c_str(), 0755);
    std::ofstream(root_ + "/clips/a.yuv") << "inside";
    std::ofstream(base_ + "/secret.yuv") << "outside";
    ASSERT_EQ(::symlink((base_ + "/secret.yuv").c_str(), (root_ + "/escape.yuv").c_str()), 0);
    ASSERT_EQ(::symlink((root_ + "/clips/a.yuv").c_str(), (root_ + "/alias.yuv").c_str()), 0);
    ASSERT_EQ(::symlink(base_.c_str(), (root_ + "/up").c_str()), 0);
  }

  std::string base_;
  std::string root_;
};

TEST_F(PathGuardTest, OpensFilesInside) {
  auto guard = PathGuard::Create(root_ + "/");
  ASSERT_TRUE(guard.ok()) << guard.status();
  for (const std::string& path :
       {std::string("clips/a.yuv"), root_ + "/clips/a.yuv", std::string("alias.yuv"),
        std::string("./clips//a.yuv")}) {
    auto fd = guard->OpenForRead(path, "reference_path");
    ASSERT_TRUE(fd.ok()) << path << ": " << fd.status();
    char buf[6];
    EXPECT_EQ(::read(*fd, buf, 6), 6);
    EXPECT_EQ(std::string(buf, 6), "inside");
    ::close(*fd);
  }
}

TEST_F(PathGuardTest, RefusesEscapes) {
  auto guard = PathGuard::Create(root_);
  ASSERT_TRUE(guard.ok());
  struct Case {
    std::string path;
    absl::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {"", absl::StatusCode::kInvalidArgument, "reference_path: empty"},
      {"../secret.yuv", absl::StatusCode::kInvalidArgument, "\"..\" is not allowed"},
      {"clips/../../secret.yuv", absl::StatusCode::kInvalidArgument, "\"..\" is not allowed"},
      {base_ + "/secret.yuv", absl::StatusCode::kInvalidArgument, "outside the server's files root"},
      {"escape.yuv", absl::StatusCode::kInvalidArgument, "through a symbolic link"},
      {"up/secret.yuv", absl::StatusCode::kInvalidArgument, "through a symbolic link"},
      {"clips", absl::StatusCode::kInvalidArgument, "not a regular file"},
      {"missing.yuv", absl::StatusCode::kNotFound, "no file \"missing.yuv\""},
      {std::string("a\0b", 3), absl::StatusCode::kInvalidArgument, "NUL"},
  };
  for (const Case& c : cases) {
    auto fd = guard->OpenForRead(c.path, "reference_path");
    ASSERT_FALSE(fd.ok()) << c.path;
    EXPECT_EQ(fd.status().code(), c.code) << c.path << ": " << fd.status();
    EXPECT_THAT(std::string(fd.status().message()), HasSubstr(c.message)) << c.path;
    EXPECT_THAT(std::string(fd.status().message()), ::testing::Not(HasSubstr("outside\"")));
  }
}

// A path is client text: messages quote it short and escaped, whatever it holds.
TEST_F(PathGuardTest, HostilePathsComeBackQuotedAndShort) {
  auto guard = PathGuard::Create(root_);
  ASSERT_TRUE(guard.ok());
  const std::string hostile = "x\n\x1b[31m" + std::string(200, 'A');
  std::ofstream(base_ + "/" + hostile) << "outside";
  const std::string outside = "/etc/x\n\x1b[31m" + std::string(1200, 'A');
  struct Case {
    std::string path;
    const char* quoted;  // how the message starts to show it
    const char* message;
  };
  const Case cases[] = {
      {outside, "\"/etc/x\\x0a\\x1b[31mAAA", "outside the server's files root"},
      {"up/" + hostile, "\"up/x\\x0a\\x1b[31mAAA", "leads outside the server's files root"},
  };
  for (const Case& c : cases) {
    auto fd = guard->OpenForRead(c.path, "distorted_path");
    ASSERT_FALSE(fd.ok()) << c.message;
    const std::string message(fd.status().message());
    EXPECT_EQ(fd.status().code(), absl::StatusCode::kInvalidArgument) << message;
    EXPECT_THAT(message, HasSubstr(absl::StrCat("distorted_path: ", c.quoted))) << message;
    EXPECT_THAT(message, HasSubstr(absl::StrCat("... (", c.path.size(), " bytes)"))) << message;
    EXPECT_THAT(message, HasSubstr(c.message));
    EXPECT_EQ(message.find_first_of("\n\x1b"), std::string::npos) << message;
    EXPECT_LT(message.size(), 250u) << message;
  }
}

TEST_F(PathGuardTest, RootMustBeADirectory) {
  EXPECT_FALSE(PathGuard::Create(root_ + "/clips/a.yuv").ok());
  EXPECT_FALSE(PathGuard::Create(base_ + "/absent").ok());
  EXPECT_FALSE(PathGuard::Create("").ok());
}

}  // namespace
}  // namespace ssimd
