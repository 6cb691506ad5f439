// TLS and mTLS from the server's flags: certificates made for the test by the openssl tool (the
// test skips, saying so, where it is not installed).
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/cpu/cpu_scorer.h"
#include "engine/dispatcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/test_server.h"

namespace ssimd::testing {
namespace {

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(absl::StrCat(std::getenv("TEST_TMPDIR"), "/tls"));
    const std::string d = *dir_;
    // EC keys: fast to make. The server certificate names 127.0.0.1, the address dialled.
    const std::string script = absl::StrCat(
        "set -e; mkdir -p ", d, "; cd ", d, "; ",
        "K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';",
        "openssl req -x509 $K -keyout ca.key -out ca.pem -days 2 -subj /CN=ssimd-test-ca;",
        "openssl req $K -keyout server.key -out server.csr -subj /CN=127.0.0.1;",
        "printf 'subjectAltName=IP:127.0.0.1' > san.ext;",
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "-extfile san.ext -out server.pem;",
        "openssl req $K -keyout client.key -out client.csr -subj /CN=ssimd-test-client;",
        "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "-out client.pem");
    made_ = std::system(absl::StrCat("command -v openssl >/dev/null && (", script,
                                     ") >/dev/null 2>&1")
                            .c_str()) == 0;
  }

  void SetUp() override {
    if (!made_) GTEST_SKIP() << "the openssl tool is not installed; cannot make test certificates";
  }

  static std::string Path(const char* name) { return absl::StrCat(*dir_, "/", name); }

  static ServerOptions TlsOptions(bool mutual) {
    ServerOptions options = FastServerOptions();
    options.tls.cert_file = Path("server.pem");
    options.tls.key_file = Path("server.key");
    if (mutual) options.tls.client_ca_file = Path("ca.pem");
    return options;
  }

  static absl::Status Call(const std::string& address, ClientOptions client) {
    client.target = address;
    auto c = SsimdClient::Connect(client);
    if (!c.ok()) return c.status();
    return (*c)->GetCapabilities(absl::Seconds(10)).status();
  }

  static std::string* dir_;
  static bool made_;
};

std::string* TlsTest::dir_ = nullptr;
bool TlsTest::made_ = false;

TEST_F(TlsTest, TlsServesVerifiedClientsAndRefusesPlaintext) {
  auto server = TestServer::Start(TlsOptions(false));
  ASSERT_NE(server, nullptr);
  ClientOptions tls;
  tls.ca_file = Path("ca.pem");
  EXPECT_TRUE(Call(server->address(), tls).ok());
  EXPECT_EQ(Call(server->address(), ClientOptions()).code(), absl::StatusCode::kUnavailable);
}

TEST_F(TlsTest, MutualTlsNeedsAClientCertificate) {
  auto server = TestServer::Start(TlsOptions(true));
  ASSERT_NE(server, nullptr);
  ClientOptions with_cert;
  with_cert.ca_file = Path("ca.pem");
  with_cert.cert_file = Path("client.pem");
  with_cert.key_file = Path("client.key");
  EXPECT_TRUE(Call(server->address(), with_cert).ok());
  ClientOptions without_cert;
  without_cert.ca_file = Path("ca.pem");
  EXPECT_EQ(Call(server->address(), without_cert).code(), absl::StatusCode::kUnavailable);
}

absl::Status StartStatus(const ServerOptions& options) {
  Backends backends;
  backends.dispatcher = std::make_unique<Dispatcher>(MakeCpuScorer(), nullptr, "no GPU");
  ServiceMetrics metrics;
  return ServerRunner::Start(options, std::move(backends), &metrics).status();
}

TEST_F(TlsTest, IncompleteTlsFlagsAreRefused) {
  ServerOptions options = FastServerOptions();
  options.tls.cert_file = Path("server.pem");
  absl::Status status = StartStatus(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("--tls_key_file"));
  options.tls.key_file = Path("absent.key");
  status = StartStatus(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("cannot read"));
  ServerOptions ca_only = FastServerOptions();
  ca_only.tls.client_ca_file = Path("ca.pem");
  EXPECT_THAT(std::string(StartStatus(ca_only).message()),
              ::testing::HasSubstr("--tls_client_ca_file needs"));
}

}  // namespace
}  // namespace ssimd::testing
