#include "server/upload_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/read_fd_for_test.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

std::string MakeTempDir() {
  std::string pattern = absl::StrCat(getenv("TEST_TMPDIR"), "/spoolXXXXXX");
  return mkdtemp(pattern.data());
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  closedir(d);
  return names;
}

UploadSpoolOptions Options(const std::string& dir) {
  UploadSpoolOptions options;
  options.dir = dir;
  options.max_upload_bytes = 100;
  options.max_total_bytes = 150;
  options.ttl = absl::Hours(1);
  return options;
}

TEST(UploadSpoolTest, StoredFileReadsBackUnderItsIdWithItsExtension) {
  const std::string dir = MakeTempDir();
  auto spool = UploadSpool::Create(Options(dir));
  ASSERT_TRUE(spool.ok()) << spool.status();
  auto writer = (*spool)->Begin("Clip.MP4");
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Append("hello ").ok());
  ASSERT_TRUE((*writer)->Append("world").ok());
  auto receipt = (*writer)->Commit();
  ASSERT_TRUE(receipt.ok()) << receipt.status();
  EXPECT_THAT(receipt->input, MatchesRegex("upload:[0-9a-f]{32}\\.mp4"));
  EXPECT_EQ(receipt->size_bytes, 11);
  auto fd = (*spool)->OpenForRead(receipt->input, "reference_path");
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_EQ(ReadAndClose(*fd), "hello world");

  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  struct stat info;
  ASSERT_EQ(stat(absl::StrCat(dir, "/", files[0]).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
}

TEST(UploadSpoolTest, IdsDifferBetweenUploadsOfTheSameName) {
  auto spool = UploadSpool::Create(Options(MakeTempDir()));
  ASSERT_TRUE(spool.ok());
  auto a = (*spool)->Begin("a.y4m");
  auto b = (*spool)->Begin("a.y4m");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->id(), (*b)->id());
}

TEST(UploadSpoolTest, OverThePerFileLimitIsRefusedAndThePartialFileRemoved) {
  const std::string dir = MakeTempDir();
  auto spool = UploadSpool::Create(Options(dir));
  ASSERT_TRUE(spool.ok());
  auto writer = (*spool)->Begin("big.mkv");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(std::string(60, 'x')).ok());
  absl::Status over = (*writer)->Append(std::string(41, 'x'));
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.message(), HasSubstr("--max_upload_bytes"));
  EXPECT_TRUE(FilesIn(dir).empty());
  EXPECT_EQ((*spool)->used_bytes(), 0);
  EXPECT_FALSE((*writer)->Commit().ok());
}

TEST(UploadSpoolTest, TheSpoolTotalCountsIncomingAndStoredUploads) {
  auto spool = UploadSpool::Create(Options(MakeTempDir()));
  ASSERT_TRUE(spool.ok());
  auto first = (*spool)->Begin("a.mp4");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->Append(std::string(90, 'a')).ok());
  ASSERT_TRUE((*first)->Commit().ok());
  auto second = (*spool)->Begin("b.mp4");
  ASSERT_TRUE(second.ok());
  absl::Status full = (*second)->Append(std::string(70, 'b'));
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(full.message(), HasSubstr("--max_upload_total_bytes"));
  EXPECT_EQ((*spool)->used_bytes(), 90);
}

TEST(UploadSpoolTest, AbandonedUploadLeavesNothingBehind) {
  const std::string dir = MakeTempDir();
  auto spool = UploadSpool::Create(Options(dir));
  ASSERT_TRUE(spool.ok());
  {
    auto writer = (*spool)->Begin("a.mp4");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append("partial").ok());
  }
  EXPECT_TRUE(FilesIn(dir).empty());
  EXPECT_EQ((*spool)->used_bytes(), 0);
}

TEST(UploadSpoolTest, ExpiredIdsAreNotFoundAndTheirFilesRemoved) {
  const std::string dir = MakeTempDir();
  UploadSpoolOptions options = Options(dir);
  options.ttl = absl::Milliseconds(50);
  auto spool = UploadSpool::Create(options);
  ASSERT_TRUE(spool.ok());
  auto writer = (*spool)->Begin("a.webm");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append("bytes").ok());
  auto receipt = (*writer)->Commit();
  ASSERT_TRUE(receipt.ok());
  absl::SleepFor(absl::Milliseconds(100));
  auto fd = (*spool)->OpenForRead(receipt->input, "source_path");
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(fd.status().message(), HasSubstr(absl::StrCat("\"", receipt->input, "\"")));
  EXPECT_THAT(fd.status().message(), HasSubstr("source_path"));
  EXPECT_TRUE(FilesIn(dir).empty());
  EXPECT_EQ((*spool)->used_bytes(), 0);
}

TEST(UploadSpoolTest, MalformedAndUnknownIdsAreTold) {
  auto spool = UploadSpool::Create(Options(MakeTempDir()));
  ASSERT_TRUE(spool.ok());
  for (const char* bad : {"upload:", "upload:../../etc/passwd", "upload:ABCDEF",
                          "upload:0123456789abcdef0123456789abcdef/x"}) {
    EXPECT_EQ((*spool)->OpenForRead(bad, "f").status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_EQ((*spool)->OpenForRead("upload:0123456789abcdef0123456789abcdef.mp4", "f")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(UploadSpoolTest, LeftoversOfAnEarlierRunAreRemovedAndOtherFilesKept) {
  const std::string dir = MakeTempDir();
  for (const char* name : {"ssimd-upload-0123", "operator-notes.txt"}) {
    close(open(absl::StrCat(dir, "/", name).c_str(), O_WRONLY | O_CREAT, 0600));
  }
  ASSERT_TRUE(UploadSpool::Create(Options(dir)).ok());
  EXPECT_THAT(FilesIn(dir), ::testing::ElementsAre("operator-notes.txt"));
}

TEST(UploadSpoolTest, BadSettingsNameTheirFlag) {
  UploadSpoolOptions options = Options("/nonexistent/dir");
  EXPECT_THAT(UploadSpool::Create(options).status().message(), HasSubstr("--upload_dir"));
  options = Options(MakeTempDir());
  options.max_total_bytes = 10;
  EXPECT_THAT(UploadSpool::Create(options).status().message(), HasSubstr("--max_upload_bytes"));
}

}  // namespace
}  // namespace ssimd
