#include "orchestrator/auth/issuer_keys.hpp"

#include "test_jwt.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace orch;
using namespace orch::auth;
using orch::test::TestKey;

namespace {

// A JWKS "server" the test controls: which keys it publishes, whether it fails, how slow it is.
struct FakeJwks {
    std::vector<Json> published;
    bool fail = false;
    std::chrono::milliseconds delay{0};
    std::atomic<int> calls{0};

    IssuerKeys::Fetch Fetcher() {
        return [this]() -> Result<KeySet> {
            ++calls;
            std::this_thread::sleep_for(delay);
            if (fail) {
                return Error::Unavailable("connection refused");
            }
            return ParseJwks(Json{{"keys", published}}.dump());
        };
    }
};

IssuerKeys::Options Options() {
    IssuerKeys::Options options;
    options.min_refresh_interval = std::chrono::seconds(30);
    options.max_age = std::chrono::seconds(3600);
    options.wait_timeout = std::chrono::seconds(5);
    return options;
}

const std::optional<std::string> kRsa1 = std::string("rsa1");
const std::optional<std::string> kRsa2 = std::string("rsa2");

}  // namespace

TEST_CASE("keys are fetched once, then served from the cache") {
    FakeJwks jwks;
    jwks.published = {TestKey::Rsa("rsa1").PublicJwk()};
    ManualClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), Options(), clock);
    for (int i = 0; i < 5; ++i) {
        auto found = keys.Find(kRsa1, JwsAlgorithm::kRs256);
        REQUIRE(found);
        CHECK(found->size() == 1);
    }
    CHECK(jwks.calls == 1);
}

TEST_CASE("an unknown kid triggers one refresh, more unknown kids within the interval do not") {
    FakeJwks jwks;
    jwks.published = {TestKey::Rsa("rsa1").PublicJwk()};
    ManualClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), Options(), clock);
    REQUIRE(keys.Find(kRsa1, JwsAlgorithm::kRs256));
    clock.Advance(std::chrono::seconds(31));

    auto unknown = keys.Find(std::string("made-up-1"), JwsAlgorithm::kRs256);
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == ErrorCode::kUnauthenticated);
    CHECK(unknown.error().message == "no signing key with this key id ('kid') is published by the issuer");
    CHECK(jwks.calls == 2);
    for (int i = 0; i < 50; ++i) {
        CHECK_FALSE(keys.Find("made-up-" + std::to_string(i), JwsAlgorithm::kRs256));
    }
    CHECK(jwks.calls == 2);  // rate-limited
}

TEST_CASE("a rotated key is picked up on first sight of its kid") {
    FakeJwks jwks;
    const TestKey rsa1 = TestKey::Rsa("rsa1");
    jwks.published = {rsa1.PublicJwk()};
    ManualClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), Options(), clock);
    REQUIRE(keys.Find(kRsa1, JwsAlgorithm::kRs256));
    jwks.published = {TestKey::Rsa("rsa2").PublicJwk(), rsa1.PublicJwk()};
    clock.Advance(std::chrono::seconds(31));
    auto found = keys.Find(kRsa2, JwsAlgorithm::kRs256);
    REQUIRE(found);
    CHECK((*found)[0]->kid() == "rsa2");
    CHECK(keys.Find(kRsa1, JwsAlgorithm::kRs256));
}

TEST_CASE("a failed refresh keeps the previous keys") {
    FakeJwks jwks;
    jwks.published = {TestKey::Rsa("rsa1").PublicJwk()};
    ManualClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), Options(), clock);
    REQUIRE(keys.Find(kRsa1, JwsAlgorithm::kRs256));
    jwks.fail = true;
    clock.Advance(std::chrono::hours(2));  // stale: a refresh is attempted and fails
    CHECK(keys.Find(kRsa1, JwsAlgorithm::kRs256));
    CHECK(jwks.calls == 2);
    clock.Advance(std::chrono::seconds(31));
    CHECK(keys.Find(kRsa1, JwsAlgorithm::kRs256));
}

TEST_CASE("an issuer whose keys were never fetched is unavailable, not an invalid token") {
    FakeJwks jwks;
    jwks.fail = true;
    ManualClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), Options(), clock);
    auto found = keys.Find(kRsa1, JwsAlgorithm::kRs256);
    REQUIRE_FALSE(found);
    CHECK(found.error().code == ErrorCode::kUnavailable);
    CHECK(found.error().message == "the signing keys of issuer https://iam/ cannot be fetched: connection refused");
}

TEST_CASE("concurrent misses share one fetch") {
    FakeJwks jwks;
    jwks.published = {TestKey::Rsa("rsa1").PublicJwk()};
    jwks.delay = std::chrono::milliseconds(200);
    IssuerKeys::Options options;
    options.wait_timeout = std::chrono::seconds(5);
    const SystemClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), options, clock);
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&] {
            if (keys.Find(kRsa1, JwsAlgorithm::kRs256)) {
                ++ok;
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(ok == 8);
    CHECK(jwks.calls == 1);
}

TEST_CASE("without a kid, every key of the right type is a candidate, the algorithm must fit the key") {
    FakeJwks jwks;
    jwks.published = {
        TestKey::Rsa("rsa1").PublicJwk(), TestKey::Rsa("rsa2").PublicJwk(), TestKey::Ec("ec1").PublicJwk()};
    ManualClock clock;
    IssuerKeys keys("https://iam/", jwks.Fetcher(), Options(), clock);
    auto rsa = keys.Find(std::nullopt, JwsAlgorithm::kRs256);
    REQUIRE(rsa);
    CHECK(rsa->size() == 2);
    auto ec = keys.Find(std::nullopt, JwsAlgorithm::kEs256);
    REQUIRE(ec);
    CHECK(ec->size() == 1);
    CHECK_FALSE(keys.Find(std::string("ec1"), JwsAlgorithm::kRs256));
}
