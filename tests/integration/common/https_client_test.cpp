// The HTTP client against a real TLS server (openssl s_server) with a certificate made here:
// trusted through a custom CA file it connects; without it, or for another host name, it refuses.
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <thread>

namespace {

struct TlsServer {
    std::string dir;
    int port = 0;
    std::unique_ptr<orch::test::ChildProcess> process;

    explicit TlsServer(const std::string& common_name) {
        dir = orch::test::BinaryDir() + "/tls-" + orch::RandomUuid().substr(0, 8);
        const std::string cmd = "mkdir -p " + dir +
                                " && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=" + common_name +
                                " -addext subjectAltName=DNS:" + common_name + " -keyout " + dir + "/key.pem -out " +
                                dir + "/cert.pem >/dev/null 2>&1";
        REQUIRE(std::system(cmd.c_str()) == 0);  // NOLINT(cert-env33-c,concurrency-mt-unsafe): test setup
        port = orch::test::FreePort();
        process = std::make_unique<orch::test::ChildProcess>(
            "/usr/bin/openssl",
            std::vector<std::string>{
                "s_server",
                "-accept",
                "127.0.0.1:" + std::to_string(port),
                "-cert",
                dir + "/cert.pem",
                "-key",
                dir + "/key.pem",
                "-www",
                "-quiet"},
            std::map<std::string, std::string>{},
            dir + "/server.log"
        );
        REQUIRE(WaitListening());
    }

    bool WaitListening() {
        auto client = std::move(*orch::http::MakeClient({.verify_peer = false}));
        for (int i = 0; i < 200; ++i) {
            orch::http::ClientRequest req;
            req.url = "https://127.0.0.1:" + std::to_string(port) + "/";
            req.timeout = std::chrono::milliseconds(500);
            if (client->Send(req)) {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        return false;
    }
};

orch::Result<orch::http::ClientResponse> Get(const orch::http::ClientOptions& options, const std::string& url) {
    auto client = orch::http::MakeClient(options);
    REQUIRE(client);
    orch::http::ClientRequest req;
    req.url = url;
    req.timeout = std::chrono::seconds(5);
    return (*client)->Send(req);
}

}  // namespace

TEST_CASE("HTTPS with a custom CA file verifies certificate and host name", "[common][https]") {
    TlsServer server("localhost");
    const std::string url = "https://localhost:" + std::to_string(server.port) + "/";
    const auto trusted = Get({.ca_file = server.dir + "/cert.pem"}, url);
    REQUIRE(trusted);
    CHECK(trusted->status == 200);

    const auto untrusted = Get({}, url);  // system trust store only
    REQUIRE_FALSE(untrusted);
    CHECK(untrusted.error().code == orch::ErrorCode::kUnavailable);

    // Same trusted certificate, but reached under a name it was not issued for.
    const auto wrong_name =
        Get({.ca_file = server.dir + "/cert.pem"}, "https://127.0.0.1:" + std::to_string(server.port) + "/");
    REQUIRE_FALSE(wrong_name);
    CHECK(wrong_name.error().message.find("TLS handshake") != std::string::npos);
}

TEST_CASE("a CA file that cannot be read is refused when the client is made", "[common][https]") {
    auto client = orch::http::MakeClient({.ca_file = "/nonexistent/ca.pem"});
    REQUIRE_FALSE(client);
    CHECK(client.error().message.find("/nonexistent/ca.pem") != std::string::npos);
}
