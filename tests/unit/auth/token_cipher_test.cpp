#include "orchestrator/auth/token_cipher.hpp"

#include "orchestrator/auth/base64.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;

namespace {

TokenCipher Cipher(char fill, std::vector<std::string> previous = {}) {
    auto cipher = TokenCipher::Create(std::string(32, fill), std::move(previous));
    REQUIRE(cipher);
    return std::move(*cipher);
}

const std::string kToken = "eyJhbGciOiJub25lIn0.eyJqdGkiOiIxMjMifQ.";  // an IAM refresh token looks like this
const std::string kAlice = RefreshTokenContext("https://iam.example.org/", "alice");

}  // namespace

TEST_CASE("AES-256-GCM round trip, and the ciphertext reveals nothing of the token") {
    const TokenCipher cipher = Cipher('k');
    auto sealed = cipher.Seal(kToken, kAlice);
    REQUIRE(sealed);
    CHECK(sealed->rfind("v1.", 0) == 0);
    CHECK(sealed->find(kToken) == std::string::npos);
    CHECK(sealed->find("eyJ") == std::string::npos);
    auto opened = cipher.Open(*sealed, kAlice);
    REQUIRE(opened);
    CHECK(*opened == kToken);
    // A fresh nonce each time: the same token never gives the same ciphertext.
    CHECK(*cipher.Seal(kToken, kAlice) != *sealed);
}

TEST_CASE("a ciphertext moved to another user, altered, or opened with another key does not open") {
    const TokenCipher cipher = Cipher('k');
    const std::string sealed = *cipher.Seal(kToken, kAlice);
    auto moved = cipher.Open(sealed, RefreshTokenContext("https://iam.example.org/", "mallory"));
    REQUIRE_FALSE(moved);
    CHECK(moved.error().message == "the stored token does not decrypt (wrong key, or altered)");

    const auto dot = sealed.rfind('.');
    std::string blob = *Base64Decode(sealed.substr(dot + 1));
    blob[14] = static_cast<char>(blob[14] ^ 0x01);
    CHECK_FALSE(cipher.Open(sealed.substr(0, dot + 1) + Base64Encode(blob), kAlice));

    auto other = Cipher('o').Open(sealed, kAlice);
    REQUIRE_FALSE(other);
    CHECK(other.error().message.find("not configured") != std::string::npos);
    CHECK_FALSE(cipher.Open("v2.abc.def", kAlice));
    CHECK_FALSE(cipher.Open("garbage", kAlice));
}

TEST_CASE("after a key rotation, old ciphertexts still open with the previous key") {
    const std::string old_sealed = *Cipher('o').Seal(kToken, kAlice);
    const TokenCipher rotated = Cipher('n', {std::string(32, 'o')});
    auto opened = rotated.Open(old_sealed, kAlice);
    REQUIRE(opened);
    CHECK(*opened == kToken);
    const std::string new_sealed = *rotated.Seal(kToken, kAlice);
    CHECK_FALSE(Cipher('o').Open(new_sealed, kAlice));  // new ciphertexts use the new key
}

TEST_CASE("keys must be 32 bytes") {
    CHECK_FALSE(TokenCipher::Create(std::string(16, 'k')));
    CHECK_FALSE(TokenCipher::Create(std::string(32, 'k'), {std::string(31, 'o')}));
}
