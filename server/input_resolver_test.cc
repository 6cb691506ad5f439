#include "server/input_resolver.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/client_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string ReadAll(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  ::close(fd);
  return out;
}

class InputResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    base_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/resolver_", ++counter);
    ASSERT_EQ(::mkdir(base_.c_str(), 0755), 0);
    const std::string root = base_ + "/root";
    const std::string spool = base_ + "/spool";
    ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(spool.c_str(), 0755), 0);
    std::ofstream(root + "/inside.y4m") << "below the root";
    std::ofstream(base_ + "/outside.y4m") << "secret";

    auto guard = PathGuard::Create(root);
    ASSERT_TRUE(guard.ok()) << guard.status();
    files_ = std::make_unique<PathGuard>(*std::move(guard));
    UploadSpoolOptions spool_options;
    spool_options.dir = spool;
    auto uploads = UploadSpool::Create(spool_options);
    ASSERT_TRUE(uploads.ok()) << uploads.status();
    uploads_ = *std::move(uploads);
    // Port 1 on loopback: nothing listens there, so a fetch fails at once, after the checks.
    UrlSourceOptions url_options;
    url_options.allowed_prefixes = {"http://127.0.0.1:1/media/"};
    auto urls = UrlSource::Create(url_options);
    ASSERT_TRUE(urls.ok()) << urls.status();
    urls_ = *std::move(urls);
  }

  std::string Upload(const std::string& name, const std::string& bytes) {
    auto writer = uploads_->Begin(name);
    EXPECT_TRUE(writer.ok()) << writer.status();
    EXPECT_TRUE((*writer)->Append(bytes).ok());
    auto receipt = (*writer)->Commit();
    EXPECT_TRUE(receipt.ok()) << receipt.status();
    return receipt->input;
  }

  std::string base_;
  std::unique_ptr<PathGuard> files_;
  std::unique_ptr<UploadSpool> uploads_;
  std::unique_ptr<UrlSource> urls_;
};

TEST(InputKindTest, PrefixesChooseTheKind) {
  EXPECT_EQ(KindOfInput("upload:0123"), InputReferenceKind::kUpload);
  EXPECT_EQ(KindOfInput("https://media.example.com/a.mp4"), InputReferenceKind::kUrl);
  EXPECT_EQ(KindOfInput("HTTP://media.example.com/a.mp4"), InputReferenceKind::kUrl);
  EXPECT_EQ(KindOfInput("clips/a.mp4"), InputReferenceKind::kPath);
  EXPECT_EQ(KindOfInput("./upload:0123"), InputReferenceKind::kPath);
  EXPECT_EQ(KindOfInput("ftp://media.example.com/a.mp4"), InputReferenceKind::kPath);
}

TEST(InputKindTest, ReaderNamesKeepTheExtensionAndDropQueries) {
  EXPECT_EQ(ReaderNameOfInput("upload:0123456789abcdef0123456789abcdef.y4m"),
            "upload:0123456789abcdef0123456789abcdef.y4m");
  EXPECT_EQ(ReaderNameOfInput("https://cdn.example.com/t/720p.y4m?X-Signature=abc&e=1"),
            "https://cdn.example.com/t/720p.y4m");
  EXPECT_EQ(ReaderNameOfInput("https://cdn.example.com/t/720p.yuv#part"),
            "https://cdn.example.com/t/720p.yuv");
  EXPECT_EQ(ReaderNameOfInput("clips/a?b.yuv"), "clips/a?b.yuv");
}

TEST(InputKindTest, HostileReaderNamesComeOutShortAndEscapedWithTheirExtension) {
  const std::string path = "/etc/x\n\x1b[31m" + std::string(1200, 'A') + ".y4m";
  const std::string name = ReaderNameOfInput(path);
  EXPECT_LE(name.size(), kQuotedClientBytes) << name;
  EXPECT_THAT(name, StartsWith("/etc/x\\x0a\\x1b[31mAAA"));
  EXPECT_THAT(name, ::testing::EndsWith("....y4m"));
  const std::string url = "http://127.0.0.1:1/media/" + std::string(3000, 'u') + ".mp4?sig=s";
  EXPECT_THAT(ReaderNameOfInput(url), ::testing::EndsWith("....mp4"));
  EXPECT_LE(ReaderNameOfInput(url).size(), kQuotedClientBytes);
}

TEST_F(InputResolverTest, ACallThatEndedOpensNothing) {
  const InputResolver resolver(files_.get(), uploads_.get(), urls_.get());
  const FetchControl ended = resolver.ControlForCall([] { return true; });
  const std::string id = Upload("a.y4m", "x");
  for (const std::string& input :
       {std::string("inside.y4m"), id, std::string("http://127.0.0.1:1/media/a.mp4")}) {
    auto fd = resolver.OpenForRead(input, "renditions[2].path", ended);
    EXPECT_EQ(fd.status().code(), absl::StatusCode::kCancelled) << input << ": " << fd.status();
    EXPECT_THAT(std::string(fd.status().message()), StartsWith("renditions[2].path: "));
  }
  // Check's refusals still come first.
  EXPECT_EQ(resolver.OpenForRead("http://127.0.0.1:1/private/a.mp4", "f", ended).status().code(),
            absl::StatusCode::kPermissionDenied);
  // A call still running opens as before.
  auto fd = resolver.OpenForRead("inside.y4m", "f", resolver.ControlForCall([] { return false; }));
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_EQ(ReadAll(*fd), "below the root");
}

TEST_F(InputResolverTest, TheCallTimeoutComesFromTheUrlOptions) {
  UrlSourceOptions options;
  options.allowed_prefixes = {"http://127.0.0.1:1/media/"};
  options.call_timeout = absl::Seconds(42);
  auto urls = UrlSource::Create(options);
  ASSERT_TRUE(urls.ok()) << urls.status();
  const InputResolver with_urls(files_.get(), nullptr, urls->get());
  EXPECT_EQ(with_urls.ControlForCall(nullptr).budget(), absl::Seconds(42));
  const InputResolver without(files_.get(), nullptr, nullptr);
  EXPECT_EQ(without.ControlForCall(nullptr).deadline(), absl::InfiniteFuture());
}

TEST_F(InputResolverTest, OpensEachKind) {
  const InputResolver resolver(files_.get(), uploads_.get(), urls_.get());
  EXPECT_TRUE(resolver.any_enabled());

  auto path = resolver.OpenForRead("inside.y4m", "reference_path");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(ReadAll(*path), "below the root");

  const std::string id = Upload("Clip.MP4", "uploaded bytes");
  EXPECT_THAT(id, StartsWith("upload:"));
  auto upload = resolver.OpenForRead(id, "distorted_path");
  ASSERT_TRUE(upload.ok()) << upload.status();
  EXPECT_EQ(ReadAll(*upload), "uploaded bytes");

  // Allowed, so it reaches the fetch, which finds nobody listening.
  auto url = resolver.OpenForRead("http://127.0.0.1:1/media/a.mp4", "source_path");
  EXPECT_EQ(url.status().code(), absl::StatusCode::kFailedPrecondition) << url.status();
  EXPECT_THAT(std::string(url.status().message()), StartsWith("source_path: "));
}

TEST_F(InputResolverTest, UnknownUploadIsNotFound) {
  const InputResolver resolver(nullptr, uploads_.get(), nullptr);
  auto fd = resolver.OpenForRead("upload:0123456789abcdef0123456789abcdef.mp4", "distorted_path");
  EXPECT_EQ(fd.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(fd.status().message()), StartsWith("distorted_path: "));
}

TEST_F(InputResolverTest, PathEscapesAreStillRefused) {
  const InputResolver resolver(files_.get(), uploads_.get(), urls_.get());
  for (const std::string& path : {std::string("../outside.y4m"), base_ + "/outside.y4m"}) {
    auto fd = resolver.OpenForRead(path, "reference_path");
    EXPECT_EQ(fd.status().code(), absl::StatusCode::kInvalidArgument) << path;
    EXPECT_THAT(fd.status().message(), Not(HasSubstr("secret")));
  }
}

TEST_F(InputResolverTest, UrlsOutsideThePrefixesAreRefusedBeforeAnyFetch) {
  const InputResolver resolver(files_.get(), uploads_.get(), urls_.get());
  for (const char* url : {"http://127.0.0.1:1/private/a.mp4", "http://127.0.0.2:1/media/a.mp4",
                          "https://127.0.0.1:1/media/a.mp4", "http://127.0.0.1:1/media/../a.mp4"}) {
    SCOPED_TRACE(url);
    EXPECT_EQ(resolver.Check(url, "renditions[0].path").code(),
              absl::StatusCode::kPermissionDenied);
    auto fd = resolver.OpenForRead(url, "renditions[0].path");
    EXPECT_EQ(fd.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(std::string(fd.status().message()), StartsWith("renditions[0].path: "));
    EXPECT_THAT(fd.status().message(), HasSubstr("--allow_url_prefix"));
  }
}

TEST_F(InputResolverTest, EachKindSaysHowToTurnItOn) {
  const InputResolver none(nullptr, nullptr, nullptr);
  EXPECT_FALSE(none.any_enabled());

  auto path = none.OpenForRead("inside.y4m", "reference_path");
  EXPECT_EQ(path.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(path.status().message()), StartsWith("reference_path: "));
  EXPECT_THAT(path.status().message(), HasSubstr("--files_root"));

  auto upload = none.OpenForRead("upload:0123456789abcdef0123456789abcdef", "distorted_path");
  EXPECT_EQ(upload.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(upload.status().message(),
              HasSubstr("uploads are disabled on this server: start it with --upload_dir"));

  auto url = none.OpenForRead("https://media.example.com/a.mp4?sig=secret", "source_path");
  EXPECT_EQ(url.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(url.status().message(), HasSubstr("--allow_url_prefix"));
  EXPECT_THAT(url.status().message(), Not(HasSubstr("secret")));

  // One kind being on does not turn the others on.
  const InputResolver uploads_only(nullptr, uploads_.get(), nullptr);
  EXPECT_TRUE(uploads_only.any_enabled());
  EXPECT_EQ(uploads_only.Check("inside.y4m", "reference_path").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(uploads_only.Check("http://127.0.0.1:1/media/a.mp4", "reference_path").code(),
            absl::StatusCode::kPermissionDenied);
  const std::string id = Upload("a.y4m", "x");
  EXPECT_TRUE(uploads_only.OpenForRead(id, "reference_path").ok());
}

}  // namespace
}  // namespace ssimd
