#include "orchestrator/auth/jws.hpp"

#include "orchestrator/auth/base64.hpp"
#include "orchestrator/auth/public_key.hpp"
#include "test_jwt.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using orch::test::SignJwt;
using orch::test::TestKey;

namespace {

PublicKey Import(const TestKey& key, std::string_view alg = "") {
    auto parsed = ParseJwk(key.PublicJwk(alg));
    REQUIRE(parsed);
    return std::move(*parsed);
}

Status VerifyToken(const std::string& token, JwsAlgorithm alg, const PublicKey& key) {
    auto jws = ParseCompactJws(token, {});
    REQUIRE(jws);
    return VerifyJwsSignature(alg, key, jws->signing_input, jws->signature);
}

const Json kPayload = {{"iss", "https://iam.example.org/"}, {"sub", "u1"}, {"exp", 4102444800}};

}  // namespace

TEST_CASE("RS256/384/512 and PS256/384/512 signatures verify with an imported RSA JWK") {
    const TestKey rsa = TestKey::Rsa("rsa1");
    const PublicKey key = Import(rsa);
    CHECK(key.type() == KeyType::kRsa);
    CHECK(key.bits() == 2048);
    for (const char* name : {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}) {
        INFO(name);
        const auto alg = ParseJwsAlgorithm(name);
        REQUIRE(alg);
        CHECK(VerifyToken(SignJwt(rsa, name, kPayload), *alg, key));
    }
}

TEST_CASE("ES256 and ES384 signatures (raw R||S) verify with imported EC JWKs") {
    const TestKey p256 = TestKey::Ec("ec1", "P-256");
    const TestKey p384 = TestKey::Ec("ec2", "P-384");
    const PublicKey k256 = Import(p256);
    const PublicKey k384 = Import(p384);
    CHECK(k256.curve() == "P-256");
    for (int i = 0; i < 20; ++i) {  // several signatures: R or S with leading zero bytes must work too
        CHECK(VerifyToken(SignJwt(p256, "ES256", kPayload), JwsAlgorithm::kEs256, k256));
    }
    CHECK(VerifyToken(SignJwt(p384, "ES384", kPayload), JwsAlgorithm::kEs384, k384));
    // Keys are bound to their curve's algorithm.
    CHECK_FALSE(VerifyToken(SignJwt(p256, "ES256", kPayload), JwsAlgorithm::kEs384, k256));
}

TEST_CASE("a tampered payload or signature does not verify") {
    const TestKey rsa = TestKey::Rsa("rsa1");
    const PublicKey key = Import(rsa);
    const std::string token = SignJwt(rsa, "RS256", kPayload);
    const auto dot1 = token.find('.');
    const auto dot2 = token.find('.', dot1 + 1);
    Json other = kPayload;
    other["sub"] = "admin";
    const std::string swapped = token.substr(0, dot1 + 1) + Base64UrlEncode(other.dump()) + token.substr(dot2);
    auto status = VerifyToken(swapped, JwsAlgorithm::kRs256, key);
    REQUIRE_FALSE(status);
    CHECK(status.error().message == "the signature does not verify");

    std::string flipped = token;
    flipped[dot2 + 10] = flipped[dot2 + 10] == 'A' ? 'B' : 'A';
    CHECK_FALSE(VerifyToken(flipped, JwsAlgorithm::kRs256, key));
}

TEST_CASE("a key verifies only the algorithms it is bound to") {
    const TestKey rsa = TestKey::Rsa("rsa1");
    const TestKey ec = TestKey::Ec("ec1");
    const PublicKey rsa_key = Import(rsa, "RS256");
    const PublicKey ec_key = Import(ec);
    CHECK(rsa_key.CanVerify(JwsAlgorithm::kRs256));
    CHECK_FALSE(rsa_key.CanVerify(JwsAlgorithm::kPs256));  // the JWK pins RS256
    CHECK_FALSE(rsa_key.CanVerify(JwsAlgorithm::kEs256));
    CHECK_FALSE(ec_key.CanVerify(JwsAlgorithm::kRs256));
    auto status = VerifyToken(SignJwt(rsa, "PS256", kPayload), JwsAlgorithm::kPs256, rsa_key);
    REQUIRE_FALSE(status);
    CHECK(status.error().message.find("not usable with algorithm PS256") != std::string::npos);
}

TEST_CASE("an ECDSA signature of the wrong length is refused before OpenSSL sees it") {
    const TestKey ec = TestKey::Ec("ec1");
    const PublicKey key = Import(ec);
    const std::string token = SignJwt(ec, "ES256", kPayload);
    auto jws = ParseCompactJws(token, {});
    REQUIRE(jws);
    auto status = VerifyJwsSignature(JwsAlgorithm::kEs256, key, jws->signing_input, jws->signature + "x");
    REQUIRE_FALSE(status);
    CHECK(status.error().message == "the ECDSA signature has the wrong length");
}

TEST_CASE("compact JWS parsing rejects malformed tokens with a reason") {
    const auto reason = [](std::string_view token) {
        auto parsed = ParseCompactJws(token, {.max_token_bytes = 64, .max_json_depth = 4});
        REQUIRE_FALSE(parsed);
        return parsed.error().message;
    };
    CHECK(reason("abc") == "not a signed JWT (expected three dot-separated parts)");
    CHECK(reason("a.b.c.d") == "not a signed JWT (expected three dot-separated parts)");
    CHECK(reason("!!.e30.") == "the JWT header is not base64url");
    CHECK(reason(Base64UrlEncode("[1]") + ".e30.") == "the JWT header is not a JSON object");
    CHECK(reason("e30." + Base64UrlEncode("{\"a\":") + ".") == "the JWT payload is not a JSON object");
    CHECK(reason("e30." + Base64UrlEncode("[[[[[[[[1]]]]]]]]") + ".") == "the JWT payload is not a JSON object");
    CHECK(reason("e30.e30.a=") == "the JWT signature is not base64url");
    CHECK(reason(std::string(65, 'a')) == "the token is larger than 64 bytes");
}

TEST_CASE("JWK import refuses unusable keys") {
    const auto reason = [](const Json& jwk) {
        auto parsed = ParseJwk(jwk);
        REQUIRE_FALSE(parsed);
        return parsed.error().message;
    };
    Json rsa = TestKey::Rsa("r").PublicJwk();
    CHECK(reason(Json{{"kty", "oct"}, {"kid", "h"}, {"k", "c2VjcmV0"}}) == "JWK 'h': key type 'oct' is not accepted");
    Json enc = rsa;
    enc["use"] = "enc";
    CHECK(reason(enc) == "JWK 'r': not a signature verification key");
    Json hs = rsa;
    hs["alg"] = "HS256";
    CHECK(reason(hs) == "JWK 'r': algorithm 'HS256' is not accepted");
    CHECK(reason(TestKey::Rsa("small", 768).PublicJwk()) == "JWK 'small': RSA key of 768 bits is too small");

    Json ec = TestKey::Ec("e").PublicJwk();
    Json off_curve = ec;
    std::string y = *Base64UrlDecode(ec["y"].get<std::string>());
    y.back() = static_cast<char>(y.back() ^ 1);
    off_curve["y"] = Base64UrlEncode(y);
    CHECK(reason(off_curve).rfind("JWK 'e': ", 0) == 0);
    Json p521 = ec;
    p521["crv"] = "P-521";
    CHECK(reason(p521) == "JWK 'e': unsupported EC curve 'P-521'");
    Json no_x = ec;
    no_x.erase("x");
    CHECK(reason(no_x) == "JWK 'e': missing member 'x'");
}

TEST_CASE("a JWKS keeps the usable keys and says why the others were skipped") {
    Json jwks = {
        {"keys",
         Json::array(
             {TestKey::Rsa("r1").PublicJwk("RS256"), Json{{"kty", "oct"}, {"kid", "h"}}, TestKey::Ec("e1").PublicJwk()}
         )}};
    auto set = ParseJwks(jwks.dump());
    REQUIRE(set);
    REQUIRE(set->keys.size() == 2);
    CHECK(set->keys[0]->kid() == "r1");
    CHECK(set->keys[1]->kid() == "e1");
    REQUIRE(set->skipped.size() == 1);
    CHECK_FALSE(ParseJwks("{\"keys\": 1}"));
    CHECK_FALSE(ParseJwks("not json"));
}
