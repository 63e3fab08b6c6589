// RFC 7591/7592 client: what it sends, and what it refuses in an issuer's answer.
#include "orchestrator/auth/client_registration.hpp"

#include "common/json.hpp"

#include <catch2/catch.hpp>

#include <utility>
#include <vector>

using namespace orch;
using namespace orch::auth;

namespace {

// Answers every request with one scripted response and keeps what it was sent.
class ScriptedClient final : public http::Client {
   public:
    ScriptedClient(int status, std::string body) : status_(status), body_(std::move(body)) {}
    Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
        sent.push_back(request);
        http::ClientResponse response;
        response.status = status_;
        response.body = body_;
        return response;
    }
    std::vector<http::ClientRequest> sent;

   private:
    int status_;
    std::string body_;
};

const std::string kEndpoint = "https://iam.example.org/iam/api/client-registration";

std::string Answer(const std::string& management_uri) {
    return R"({"client_id":"c1","client_secret":"s3cr3t-value","registration_access_token":"rat-value-123",)"
           R"("registration_client_uri":")" +
           management_uri + R"("})";
}

ClientMetadata Metadata() {
    ClientMetadata m;
    m.client_name = "orch-dep";
    m.redirect_uris = {"https://svc.example.org/cb"};
    m.grant_types = {"client_credentials"};
    return m;
}

}  // namespace

TEST_CASE("registration sends the bearer and the metadata, bounded") {
    ScriptedClient http(201, Answer(kEndpoint + "/c1"));
    ClientRegistration registration(http, std::chrono::milliseconds(1234));
    auto client = registration.Register(kEndpoint, "initial-token", Metadata());
    REQUIRE(client);
    CHECK(client->client_id == "c1");
    REQUIRE(http.sent.size() == 1);
    const auto& request = http.sent.front();
    CHECK(request.method == "POST");
    CHECK(request.timeout == std::chrono::milliseconds(1234));
    CHECK(request.max_response_bytes <= (64u << 10));
    auto body = ParseJson(request.body);
    REQUIRE(body);
    CHECK(body->at("client_name") == "orch-dep");
    CHECK(body->at("response_types") == Json::array());  // no code grant: no front channel
    bool bearer = false;
    for (const auto& [name, value] : request.headers) {
        bearer = bearer || (name == "Authorization" && value == "Bearer initial-token");
    }
    CHECK(bearer);
}

TEST_CASE("a management URI off the issuer's origin is refused: the token never leaves the issuer") {
    for (const std::string uri :
         {"https://attacker.example.net/c1", "http://iam.example.org/c1", "https://iam.example.org:8443/c1", ""}) {
        ScriptedClient http(201, Answer(uri));
        ClientRegistration registration(http, std::chrono::milliseconds(1000));
        auto client = registration.Register(kEndpoint, "initial-token", Metadata());
        REQUIRE_FALSE(client);
        CHECK(client.error().message.find("rat-value-123") == std::string::npos);
        CHECK(client.error().message.find("s3cr3t-value") == std::string::npos);
    }
}

TEST_CASE("an issuer error echoing the bearer is reported by its code only") {
    ScriptedClient http(400, R"({"error":"invalid_client_metadata","error_description":"bad token initial-token"})");
    ClientRegistration registration(http, std::chrono::milliseconds(1000));
    auto client = registration.Register(kEndpoint, "initial-token", Metadata());
    REQUIRE_FALSE(client);
    CHECK(client.error().code == ErrorCode::kInvalidArgument);
    CHECK(client.error().message.find("invalid_client_metadata") != std::string::npos);
    CHECK(client.error().message.find("initial-token") == std::string::npos);
}

TEST_CASE("deleting: 204 and 404 are deleted, 401 unconfirmed, a server error an error") {
    RegisteredClient client{"c1", "s", kEndpoint + "/c1", "rat"};
    for (const auto& [status, outcome] : std::vector<std::pair<int, ClientDeletion>>{
             {204, ClientDeletion::kDeleted}, {404, ClientDeletion::kDeleted}, {401, ClientDeletion::kUnconfirmed}}) {
        ScriptedClient http(status, "");
        auto deleted = ClientRegistration(http, std::chrono::milliseconds(1000)).Delete(client);
        REQUIRE(deleted);
        CHECK(*deleted == outcome);
        REQUIRE(http.sent.size() == 1);
        CHECK(http.sent.front().method == "DELETE");
    }
    ScriptedClient failing(503, "");
    CHECK_FALSE(ClientRegistration(failing, std::chrono::milliseconds(1000)).Delete(client));
}
