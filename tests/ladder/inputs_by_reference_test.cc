// Inputs by reference end to end (docs/adr/0078): a rendition and its source uploaded with
// UploadFile, or fetched from an allowed URL (server/http_fixture.py), score exactly as libvmaf
// does, as the same files given as paths do (score_files_parity_test); and every refusal on the
// way (a limit, an unknown id, a kind that is off, a URL outside the prefixes, an idle or
// cancelled upload) is the status a client can act on, with no partial file left in the spool.
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/test_server.h"
#include "tests/ladder/ladder_files.h"
#include "tests/ladder/libvmaf_expectations.h"

extern char** environ;

namespace ssimd::testing {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kTimeout = absl::Minutes(2);
constexpr char kPython[] = "/usr/bin/python3";
// 8-bit, so scored against src.y4m; small, so the test stays quick.
constexpr char kRendition[] = "h264_640x360.mp4";
constexpr char kUnknownId[] = "upload:0123456789abcdef0123456789abcdef.mp4";

std::string Tmp(const std::string& name) {
  static int counter = 0;
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name, "_", ++counter);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

// The spool's files, stored or partial.
std::vector<std::string> SpoolFiles(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* entry = ::readdir(d)) {
      if (absl::StartsWith(entry->d_name, "ssimd-upload-")) out.push_back(entry->d_name);
    }
    ::closedir(d);
  }
  return out;
}

// Waits for the spool to be empty: where the client ends an upload (a cancel), the server hears
// of it a moment later.
bool SpoolEmptiesWithin(const std::string& dir, absl::Duration wait) {
  const absl::Time give_up = absl::Now() + wait;
  while (!SpoolFiles(dir).empty()) {
    if (absl::Now() > give_up) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

// The libvmaf scores of kRendition against src.y4m (accurate rounding: the same on every CPU).
ExpectedRendition ExpectedScores() {
  auto expected = ReadExpectedScores("expected_scores_accurate_rnd.json");
  EXPECT_TRUE(expected.ok()) << expected.status();
  if (expected.ok()) {
    for (const ExpectedRendition& e : *expected) {
      if (e.distorted == kRendition) return e;
    }
  }
  ADD_FAILURE() << "no expected scores for " << kRendition;
  return {};
}

v1::ScoreFilesRequest ParityRequest(const std::string& reference, const std::string& distorted) {
  v1::ScoreFilesRequest request;
  request.mutable_config()->mutable_features()->add_feature_args("float_ssim");
  request.mutable_config()->mutable_features()->add_feature_args("ssim");
  request.set_reference_path(reference);
  request.set_distorted_path(distorted);
  request.mutable_upscale()->set_accurate_rounding(true);
  return request;
}

void ExpectLibvmafScores(const absl::StatusOr<ClipReport>& report) {
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectLibvmafFrames(report->frames, report->summary, ExpectedScores());
}

absl::StatusCode Code(const grpc::Status& status) {
  return static_cast<absl::StatusCode>(status.error_code());
}

class UploadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spool_ = Tmp("spool");
    server_ = Start(spool_, int64_t{80} << 20);
    ASSERT_NE(server_, nullptr);
  }

  static std::unique_ptr<TestServer> Start(const std::string& spool, int64_t max_upload_bytes,
                                           absl::Duration idle = absl::Minutes(1)) {
    ServerOptions options = FastServerOptions();
    options.service.backend_policy = BackendPreference::kCpu;
    options.service.stream_idle_timeout = idle;
    options.uploads.dir = spool;
    options.uploads.max_upload_bytes = max_upload_bytes;
    options.uploads.max_total_bytes = int64_t{200} << 20;
    return TestServer::Start(options);
  }

  std::string spool_;
  std::unique_ptr<TestServer> server_;
};

TEST_F(UploadTest, UploadedFilesScoreAsLibvmaf) {
  const std::string missing = MissingSourcesReason();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const std::string source_path = LadderSourcesDir() + "/src.y4m";
  auto source = server_->client().UploadFile(source_path, kTimeout);
  ASSERT_TRUE(source.ok()) << source.status();
  auto rendition =
      server_->client().UploadFile(absl::StrCat("tests/data/ladder/", kRendition), kTimeout);
  ASSERT_TRUE(rendition.ok()) << rendition.status();
  // The id keeps the extension, which chooses the reader.
  EXPECT_TRUE(absl::StartsWith(source->input(), "upload:")) << source->input();
  EXPECT_TRUE(absl::EndsWith(source->input(), ".y4m")) << source->input();
  EXPECT_TRUE(absl::EndsWith(rendition->input(), ".mp4")) << rendition->input();
  EXPECT_EQ(static_cast<int64_t>(source->size_bytes()), FileSize(source_path));
  EXPECT_EQ(source->expires_in_seconds(), 3600u);
  EXPECT_EQ(SpoolFiles(spool_).size(), 2u);

  ExpectLibvmafScores(server_->client().ScoreFiles(
      ParityRequest(source->input(), rendition->input()), nullptr, kTimeout));

  // An upload serves many calls: the same two as a ladder of one rung.
  v1::ScoreLadderRequest ladder;
  ladder.mutable_config()->mutable_features()->add_feature_args("float_ssim");
  ladder.mutable_config()->mutable_features()->add_feature_args("ssim");
  ladder.mutable_upscale()->set_accurate_rounding(true);
  ladder.set_source_path(source->input());
  v1::Rendition* rung = ladder.add_renditions();
  rung->set_name("360p");
  rung->set_path(rendition->input());
  auto report = server_->client().ScoreLadder(ladder, kTimeout);
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectLibvmafScores(report->renditions.at("360p"));
}

TEST_F(UploadTest, UploadAboveTheLimitIsResourceExhaustedAndKeepsNothing) {
  const std::string spool = Tmp("small_spool");
  auto server = Start(spool, 10000);
  ASSERT_NE(server, nullptr);
  const std::string path = absl::StrCat("tests/data/ladder/", kRendition);
  ASSERT_GT(FileSize(path), 10000);
  auto receipt = server->client().UploadFile(path, kTimeout);
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kResourceExhausted) << receipt.status();
  EXPECT_THAT(receipt.status().message(), HasSubstr("--max_upload_bytes"));
  EXPECT_THAT(SpoolFiles(spool), ::testing::IsEmpty());
  // The server goes on serving uploads that fit.
  auto small = server->client().UploadFile("tests/data/ladder/ladder.tsv", kTimeout);
  EXPECT_TRUE(small.ok()) << small.status();
}

TEST_F(UploadTest, UnknownIdIsNotFound) {
  auto report =
      server_->client().ScoreFiles(ParityRequest(kUnknownId, kUnknownId), nullptr, kTimeout);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("reference_path: no upload"));
}

TEST_F(UploadTest, ChunksThatDoNotNameTheFileRightAreInvalidArgument) {
  {
    grpc::ClientContext context;
    v1::UploadReceipt receipt;
    auto writer = server_->stub().UploadFile(&context, &receipt);
    v1::UploadChunk chunk;
    chunk.set_data("bytes without a name");
    writer->Write(chunk);
    writer->WritesDone();
    const grpc::Status status = writer->Finish();
    EXPECT_EQ(Code(status), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.error_message(), HasSubstr("file_name: missing in the first"));
  }
  {
    grpc::ClientContext context;
    v1::UploadReceipt receipt;
    auto writer = server_->stub().UploadFile(&context, &receipt);
    v1::UploadChunk chunk;
    chunk.set_file_name("a.mp4");
    chunk.set_data("first part");
    writer->Write(chunk);
    chunk.set_file_name("b.mp4");
    writer->Write(chunk);
    writer->WritesDone();
    const grpc::Status status = writer->Finish();
    EXPECT_EQ(Code(status), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.error_message(), HasSubstr("differs from the first chunk's"));
  }
  EXPECT_THAT(SpoolFiles(spool_), ::testing::IsEmpty());
}

TEST_F(UploadTest, IdleUploadIsDeadlineExceededAndKeepsNothing) {
  const std::string spool = Tmp("idle_spool");
  auto server = Start(spool, 1 << 20, absl::Milliseconds(300));
  ASSERT_NE(server, nullptr);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::UploadReceipt receipt;
  auto writer = server->stub().UploadFile(&context, &receipt);
  v1::UploadChunk chunk;
  chunk.set_file_name("slow.mp4");
  chunk.set_data(std::string(1000, 'x'));
  ASSERT_TRUE(writer->Write(chunk));
  const absl::Time started = absl::Now();
  // Sends nothing more: Finish returns once the server ends the call.
  const grpc::Status status = writer->Finish();
  EXPECT_LT(absl::Now() - started, absl::Seconds(10));
  EXPECT_EQ(Code(status), absl::StatusCode::kDeadlineExceeded) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("--stream_idle_timeout"));
  EXPECT_THAT(status.error_message(), HasSubstr("after 1000 bytes"));
  EXPECT_THAT(SpoolFiles(spool), ::testing::IsEmpty());
}

TEST_F(UploadTest, CancelledUploadKeepsNothing) {
  grpc::ClientContext context;
  v1::UploadReceipt receipt;
  auto writer = server_->stub().UploadFile(&context, &receipt);
  v1::UploadChunk chunk;
  chunk.set_file_name("cancelled.mp4");
  chunk.set_data(std::string(1 << 16, 'x'));
  ASSERT_TRUE(writer->Write(chunk));
  chunk.clear_file_name();
  ASSERT_TRUE(writer->Write(chunk));
  // The partial file exists once the server stored a chunk.
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (SpoolFiles(spool_).empty() && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(SpoolFiles(spool_).size(), 1u);
  context.TryCancel();
  EXPECT_EQ(Code(writer->Finish()), absl::StatusCode::kCancelled);
  EXPECT_TRUE(SpoolEmptiesWithin(spool_, absl::Seconds(10)));
}

TEST(UploadsDisabledTest, UploadFileAndUploadInputsAreFailedPrecondition) {
  ServerOptions options = FastServerOptions();
  options.service.files_root = Tmp("root_only");
  auto server = TestServer::Start(options);
  ASSERT_NE(server, nullptr);
  auto receipt = server->client().UploadFile("tests/data/ladder/ladder.tsv", kTimeout);
  EXPECT_EQ(receipt.status().code(), absl::StatusCode::kFailedPrecondition) << receipt.status();
  EXPECT_THAT(receipt.status().message(), HasSubstr("--upload_dir"));
  auto report =
      server->client().ScoreFiles(ParityRequest(kUnknownId, kUnknownId), nullptr, kTimeout);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition) << report.status();
  EXPECT_THAT(report.status().message(),
              HasSubstr("reference_path: uploads are disabled on this server: start it with "
                        "--upload_dir"));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// server/http_fixture.py serving the ladder files (sources included) under /media/.
class UrlInputTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!MissingSourcesReason().empty() || ::access(kPython, X_OK) != 0) return;
    const std::string root = Tmp("served");
    if (!FillFilesRoot(root).ok()) return;
    const std::string port_file = absl::StrCat(std::getenv("TEST_TMPDIR"), "/fixture_port");
    ::unlink(port_file.c_str());
    const std::string script = "server/http_fixture.py";
    const char* argv[] = {kPython, script.c_str(), root.c_str(), port_file.c_str(), nullptr};
    if (::posix_spawn(&pid_, kPython, nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
      pid_ = 0;
      return;
    }
    for (int i = 0; i < 200 && ::access(port_file.c_str(), R_OK) != 0; ++i) {
      absl::SleepFor(absl::Milliseconds(50));
    }
    base_ = absl::StrCat("http://127.0.0.1:", ReadFile(port_file));
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = 0;
    }
  }

  void SetUp() override {
    const std::string missing = MissingSourcesReason();
    if (!missing.empty()) GTEST_SKIP() << missing;
    if (pid_ == 0) GTEST_SKIP() << kPython << " is missing: no local HTTP server to fetch from";
    ASSERT_NE(base_, "http://127.0.0.1:") << "the HTTP fixture did not start";
    // A proxy in the environment would make 127.0.0.1 unreachable.
    for (const char* name : {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}) {
      ::unsetenv(name);
    }
    ServerOptions options = FastServerOptions();
    options.service.backend_policy = BackendPreference::kCpu;
    options.urls.allowed_prefixes = {absl::StrCat(base_, "/media/")};
    server_ = TestServer::Start(options);
    ASSERT_NE(server_, nullptr);
  }

  static pid_t pid_;
  static std::string base_;
  std::unique_ptr<TestServer> server_;
};

pid_t UrlInputTest::pid_ = 0;
std::string UrlInputTest::base_;

TEST_F(UrlInputTest, FilesUnderAnAllowedPrefixScoreAsLibvmaf) {
  // The query is no part of the file's name: the extension before it still chooses the reader.
  ExpectLibvmafScores(server_->client().ScoreFiles(
      ParityRequest(absl::StrCat(base_, "/media/src.y4m?token=abc"),
                    absl::StrCat(base_, "/media/", kRendition)),
      nullptr, kTimeout));
}

TEST_F(UrlInputTest, UrlsOutsideThePrefixesArePermissionDenied) {
  // A path the fixture would serve, but outside the allowed prefix.
  auto report = server_->client().ScoreFiles(
      ParityRequest(absl::StrCat(base_, "/media/src.y4m"),
                    absl::StrCat(base_, "/sized/1000.mp4")),
      nullptr, kTimeout);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kPermissionDenied) << report.status();
  EXPECT_THAT(report.status().message(), HasSubstr("distorted_path: "));
  EXPECT_THAT(report.status().message(), HasSubstr("--allow_url_prefix"));
  // Paths and uploads stay off on this server, and say so.
  auto path = server_->client().ScoreFiles(ParityRequest("src.y4m", kRendition), nullptr,
                                           kTimeout);
  EXPECT_EQ(path.status().code(), absl::StatusCode::kFailedPrecondition) << path.status();
  EXPECT_THAT(path.status().message(), HasSubstr("--files_root"));
}

}  // namespace
}  // namespace ssimd::testing
