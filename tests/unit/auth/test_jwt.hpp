#pragma once

#include "common/json.hpp"

#include <memory>
#include <string>
#include <string_view>

struct evp_pkey_st;

namespace orch::test {

/// A private signing key generated for a test, with its public JWK (tests only).
class TestKey {
   public:
    static TestKey Rsa(std::string kid, int bits = 2048);
    static TestKey Ec(std::string kid, std::string_view curve = "P-256");

    const std::string& kid() const { return kid_; }
    /// Public JWK; `alg` is added when non-empty.
    Json PublicJwk(std::string_view alg = "") const;
    /// SubjectPublicKeyInfo PEM of the public key (what an HS/RS confusion attack keys HMAC with).
    std::string PublicPem() const;
    /// Signs `input` as JWS `alg` would (RS*/PS*: PKCS#1/PSS; ES*: raw R||S).
    std::string Sign(std::string_view alg, std::string_view input) const;

   private:
    TestKey(std::string kid, std::shared_ptr<evp_pkey_st> key, bool ec, int coord_bytes);

    std::string kid_;
    std::shared_ptr<evp_pkey_st> key_;
    bool ec_;
    int coord_bytes_;
};

/// "<b64(header)>.<b64(payload)>": the part a JWS signs.
std::string SigningInput(const Json& header, const Json& payload);

/// A compact JWS of `payload` signed by `key` with `alg` (header gets alg, kid, and `extra_header`).
std::string SignJwt(
    const TestKey& key, std::string_view alg, const Json& payload, const Json& extra_header = Json::object()
);

/// An HS256 token keyed with `secret` (for the HS/RS confusion attack).
std::string SignHs256(std::string_view secret, const Json& header, const Json& payload);

/// An unsigned token (`alg: none`, empty signature).
std::string UnsignedJwt(const Json& payload);

/// Seconds since the epoch, shifted.
std::int64_t EpochSeconds(std::int64_t offset_seconds = 0);

}  // namespace orch::test
