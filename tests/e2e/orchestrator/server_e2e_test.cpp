// The real orchestrator binary, a real PostgreSQL, plain HTTP on loopback.
#include "test_support/process.hpp"
#include "test_support/tcp_proxy.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <common/uuid.hpp>

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>

namespace {

using orch::http::ClientRequest;
using orch::http::ClientResponse;

ClientResponse Call(
    const std::string& method, const std::string& url, std::string body = "", orch::http::Headers headers = {}
) {
    static auto client = std::move(*orch::http::MakeClient({}));
    ClientRequest req;
    req.method = method;
    req.url = url;
    req.body = std::move(body);
    req.headers = std::move(headers);
    req.timeout = std::chrono::seconds(20);
    auto res = client->Send(req);
    if (!res) {
        FAIL("request failed: " << res.error().message);
    }
    return *res;
}

void CheckErrorBody(const ClientResponse& res, int code, const std::string& title) {
    CHECK(res.status == code);
    CHECK(res.Header("Content-Type") == "application/json;charset=UTF-8");
    const auto body = orch::Json::parse(res.body);
    CHECK(body["code"] == code);
    CHECK(body["title"] == title);
    CHECK(body["message"].is_string());
}

int PortOf(const std::string& dsn) {
    const auto colon = dsn.rfind(':');
    return std::stoi(dsn.substr(colon + 1, dsn.find('/', colon) - colon - 1));
}

// Sends a large body without Expect: 100-continue, the way a naive client does, and returns
// what the server answered (the 413 must arrive even though the body is never read).
std::string RawPostWithoutExpect(int port, std::size_t body_size) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    const std::string head =
        "POST /deployments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
        std::to_string(body_size) + "\r\n\r\n";
    (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    const std::string chunk(1 << 16, 'x');
    for (std::size_t sent = 0; sent < body_size; sent += chunk.size()) {
        if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) < 0) {
            break;
        }
    }
    std::string answer;
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
        answer.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return answer;
}

}  // namespace

TEST_CASE("the orchestrator answers /, /info and /healthz, with a request id", "[e2e][server]") {
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orch(db.dsn());
    const auto root = Call("GET", orch.BaseUrl() + "/");
    CHECK(root.status == 200);
    CHECK(root.body == "INDIGO-Orchestrator");
    CHECK(root.Header("Content-Type") == "text/plain;charset=UTF-8");
    const std::regex id_format("req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    CHECK(std::regex_match(root.Header("X-Request-ID"), id_format));
    const auto info = Call("GET", orch.BaseUrl() + "/info");
    CHECK(info.status == 200);
    const auto body = orch::Json::parse(info.body);
    CHECK(body["build"]["version"].is_string());
    CHECK(body.contains("projectVersion"));
    CHECK(body.contains("serverHostname"));
    CHECK(Call("GET", orch.BaseUrl() + "/healthz").status == 200);
    CHECK(orch::test::WaitForStatus(orch.BaseUrl() + "/readyz", 200, std::chrono::seconds(10)));
    CHECK(Call("GET", orch.BaseUrl() + "/info").Header("X-Request-ID") != info.Header("X-Request-ID"));
}

TEST_CASE("unknown paths and wrong methods get the contract error body", "[e2e][server]") {
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orch(db.dsn());
    const auto missing = Call("GET", orch.BaseUrl() + "/no/such/path");
    CheckErrorBody(missing, 404, "Not Found");
    CHECK_FALSE(missing.Header("X-Request-ID").empty());
    const auto wrong = Call("DELETE", orch.BaseUrl() + "/info");
    CheckErrorBody(wrong, 405, "Method Not Allowed");
    CHECK(wrong.Header("Allow") == "GET");
    CHECK(orch::Json::parse(wrong.body)["message"] == "Request method 'DELETE' not supported");
    CHECK(Call("GET", orch.BaseUrl() + "/info/").status == 200);  // trailing slash tolerated
}

TEST_CASE("a 20 MiB body is refused with 413 and the error body, not a dropped connection", "[e2e][server]") {
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orch(db.dsn());
    const auto res = Call(
        "POST", orch.BaseUrl() + "/deployments", std::string(20u << 20, 'a'), {{"Content-Type", "application/json"}}
    );
    CheckErrorBody(res, 413, "Payload Too Large");
    const std::string raw = RawPostWithoutExpect(orch.port(), 20u << 20);
    CHECK(raw.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(raw.find("\"code\":413") != std::string::npos);
    CHECK(Call("GET", orch.BaseUrl() + "/").status == 200);  // still serving
}

TEST_CASE("malformed requests get 400 with the error body", "[e2e][server]") {
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orch(db.dsn());
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(orch.port()));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    const std::string garbage = "GARBAGE / NOT-HTTP\r\n\r\n";
    (void)::send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL);
    std::string answer;
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) {
        answer.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    CHECK(answer.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(answer.find("\"code\":400") != std::string::npos);
}

TEST_CASE(
    "without a database the server still serves /, /info and /healthz, and /readyz is 503 until it returns",
    "[e2e][server]"
) {
    orch::test::TestDatabase db;
    orch::test::TcpProxy proxy(PortOf(db.dsn()));
    proxy.SetEnabled(false);
    std::string dsn = db.dsn();
    dsn.replace(dsn.rfind(':') + 1, dsn.find('/', dsn.rfind(':')) - dsn.rfind(':') - 1, std::to_string(proxy.port()));
    orch::test::OrchestratorProcess orch(dsn);
    CHECK(Call("GET", orch.BaseUrl() + "/").status == 200);
    CHECK(Call("GET", orch.BaseUrl() + "/info").status == 200);
    CHECK(Call("GET", orch.BaseUrl() + "/healthz").status == 200);
    const auto not_ready = Call("GET", orch.BaseUrl() + "/readyz");
    CheckErrorBody(not_ready, 503, "Service Unavailable");
    proxy.SetEnabled(true);
    CHECK(orch::test::WaitForStatus(orch.BaseUrl() + "/readyz", 200, std::chrono::seconds(15)));
    proxy.SetEnabled(false);
    CHECK(orch::test::WaitForStatus(orch.BaseUrl() + "/readyz", 503, std::chrono::seconds(15)));
    proxy.SetEnabled(true);
    CHECK(orch::test::WaitForStatus(orch.BaseUrl() + "/readyz", 200, std::chrono::seconds(15)));
}

TEST_CASE("SIGTERM stops the server gracefully with exit code 0", "[e2e][server]") {
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orch(db.dsn());
    CHECK(Call("GET", orch.BaseUrl() + "/").status == 200);
    const auto start = std::chrono::steady_clock::now();
    CHECK(orch.process().Stop(SIGTERM, std::chrono::seconds(15)) == 0);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(orch.process().Log().find("\"msg\":\"stopped\"") != std::string::npos);
}

TEST_CASE("a bad configuration stops startup with a message naming the key", "[e2e][server]") {
    orch::test::ChildProcess child(
        orch::test::BinaryDir() + "/bin/orchestrator",
        {"--check-config"},
        {{"ORCHESTRATOR_DB_URL", "postgresql://x/y"}, {"ORCHESTRATOR_SERVER__IO_THREADS", "zero"}},
        orch::test::BinaryDir() + "/bad-config-" + orch::RandomUuid().substr(0, 6) + ".log"
    );
    CHECK(child.Wait(std::chrono::seconds(10)) == 2);
    CHECK(child.Log().find("server.io_threads") != std::string::npos);
}

TEST_CASE("a misspelt configuration key stops startup naming it instead of being ignored", "[e2e][server]") {
    orch::test::ChildProcess child(
        orch::test::BinaryDir() + "/bin/orchestrator",
        {"--check-config"},
        {{"ORCHESTRATOR_DB_URL", "postgresql://x/y"}, {"ORCHESTRATOR_SERVER__IO_THREDS", "2"}},
        orch::test::BinaryDir() + "/bad-key-" + orch::RandomUuid().substr(0, 6) + ".log"
    );
    CHECK(child.Wait(std::chrono::seconds(10)) == 2);
    CHECK(child.Log().find("'server.io_threds' is not known") != std::string::npos);
}
