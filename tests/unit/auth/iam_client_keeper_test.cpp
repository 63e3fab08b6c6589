// Per-deployment OAuth clients: the record comes first, a client that cannot be recorded is
// deleted at once, and releasing deletes every recorded client with its own token.
#include "orchestrator/auth/iam_client_keeper.hpp"

#include "common/json.hpp"
#include "test_support/in_memory_iam_client_store.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace orch;
using namespace orch::auth;

namespace {

const std::string kEndpoint = "https://iam.example.org/register";

// An issuer's RFC 7591/7592 endpoints: the live clients and their management tokens.
class FakeRegistry final : public http::Client {
   public:
    Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
        http::ClientResponse response;
        if (request.method == "POST") {
            ++posts;
            const std::string id = "c" + std::to_string(++serial_);
            live[id] = "rat-" + id + "-0123456789";
            response.status = 201;
            response.body = Json{
                {"client_id", id},
                {"client_secret", "secret-" + id},
                {"registration_client_uri", kEndpoint + "/" + id},
                {"registration_access_token",
                 live[id]}}.dump();
            return response;
        }
        const std::string id = request.url.substr(kEndpoint.size() + 1);
        const auto it = live.find(id);
        bool authorized = false;
        for (const auto& [name, value] : request.headers) {
            authorized = authorized || (it != live.end() && name == "Authorization" && value == "Bearer " + it->second);
        }
        response.status = authorized ? 204 : 401;
        if (authorized) {
            live.erase(it);
        }
        return response;
    }
    std::map<std::string, std::string> live;
    int posts = 0;

   private:
    int serial_ = 0;
};

// The in-memory store, with failures on demand.
class FlakyStore final : public IamClientStore {
   public:
    Status Reserve(const IamClientRecord& r) override {
        return fail_reserve ? Status(Error::Unavailable("db down")) : inner.Reserve(r);
    }
    Status MarkRegistered(const std::string& id, const std::string& c, const std::string& u, const std::string& t)
        override {
        return fail_mark ? Status(Error::Unavailable("db down")) : inner.MarkRegistered(id, c, u, t);
    }
    Status MarkUnconfirmed(const std::string& id) override { return inner.MarkUnconfirmed(id); }
    Status Forget(const std::string& id) override { return inner.Forget(id); }
    Result<std::vector<IamClientRecord>> ForDeployment(const std::string& d) override { return inner.ForDeployment(d); }
    Result<std::vector<IamClientRecord>> CreatedBefore(Clock::WallTime t, int n) override {
        return inner.CreatedBefore(t, n);
    }
    test::InMemoryIamClientStore inner;
    bool fail_reserve = false;
    bool fail_mark = false;
};

struct Rig {
    FakeRegistry issuer;
    FlakyStore store;
    ClientRegistration registration{issuer, std::chrono::milliseconds(1000)};
    TokenCipher cipher = TokenCipher::Create(std::string(32, 'k')).value();
    ManualClock clock;
    IamClientKeeper keeper{store, registration, cipher, clock};

    Result<IssuedClient> Provision(const std::string& deployment) {
        ClientMetadata m;
        m.client_name = "jupyter";
        m.redirect_uris = {"https://svc.example.org/cb"};
        return keeper.Provision(deployment, "iam_client", "https://iam.example.org/", kEndpoint, "iat", m);
    }
};

}  // namespace

TEST_CASE("a provisioned client is recorded with its token sealed, and released at the issuer") {
    Rig rig;
    auto first = rig.Provision("d1");
    auto second = rig.Provision("d1");
    auto other = rig.Provision("d2");
    REQUIRE(first);
    REQUIRE(second);
    REQUIRE(other);
    CHECK(first->client_secret == "secret-" + first->client_id);
    const auto records = rig.store.ForDeployment("d1").value();
    REQUIRE(records.size() == 2);
    CHECK(records[0].state == IamClientState::kRegistered);
    CHECK(records[0].sealed_registration_token.find("rat-") == std::string::npos);  // sealed, not clear

    REQUIRE(rig.keeper.ReleaseAll("d1"));
    CHECK(rig.issuer.live.size() == 1);
    CHECK(rig.issuer.live.count(other->client_id) == 1);
    CHECK(rig.store.ForDeployment("d1").value().empty());
    REQUIRE(rig.keeper.ReleaseAll("d1"));  // a retried release has nothing left to do
}

TEST_CASE("no record, no registration: the request is never sent") {
    Rig rig;
    rig.store.fail_reserve = true;
    REQUIRE_FALSE(rig.Provision("d1"));
    CHECK(rig.issuer.posts == 0);
}

TEST_CASE("a client whose record cannot be completed is deleted at once") {
    Rig rig;
    rig.store.fail_mark = true;
    REQUIRE_FALSE(rig.Provision("d1"));
    CHECK(rig.issuer.posts == 1);
    CHECK(rig.issuer.live.empty());
    CHECK(rig.store.ForDeployment("d1").value().empty());
}

TEST_CASE("a registration interrupted before its record was completed stays on record for the operator") {
    Rig rig;
    // What a kill -9 between the issuer's answer and MarkRegistered leaves: a reserved record.
    IamClientRecord crashed;
    crashed.id = "00000000-0000-4000-8000-000000000001";
    crashed.deployment_id = "d1";
    crashed.node_name = "iam_client";
    crashed.issuer = "https://iam.example.org/";
    REQUIRE(rig.store.Reserve(crashed));
    REQUIRE(rig.keeper.ReleaseAll("d1"));
    const auto left = rig.store.ForDeployment("d1").value();
    REQUIRE(left.size() == 1);
    CHECK(left[0].state == IamClientState::kRegistering);
}
