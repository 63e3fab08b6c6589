#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/jws_algorithm.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct evp_pkey_st;  // OpenSSL's EVP_PKEY, kept out of this header

namespace orch::auth {

enum class KeyType { kRsa, kEc };

struct VerifyContexts;  // prepared OpenSSL verification state (src/auth/verify_contexts.hpp)

/// One issuer signing key, imported from a JWK. Immutable once built, so verifying threads share
/// it without locks (OpenSSL 3 allows concurrent use of a const EVP_PKEY).
class PublicKey {
   public:
    PublicKey(
        KeyType type,
        std::string kid,
        std::string jwk_alg,
        std::string curve,
        int bits,
        std::shared_ptr<evp_pkey_st> key
    );

    KeyType type() const { return type_; }
    const std::string& kid() const { return kid_; }
    /// The JWK's own `alg` member; empty when the JWK does not pin one.
    const std::string& jwk_alg() const { return jwk_alg_; }
    /// "P-256"/"P-384" for EC keys, empty for RSA.
    const std::string& curve() const { return curve_; }
    int bits() const { return bits_; }
    evp_pkey_st* native() const { return key_.get(); }
    /// Verification contexts prepared for this key (used by VerifyJwsSignature).
    VerifyContexts& verify_contexts() const { return *contexts_; }

    /// Key/algorithm binding (RFC 8725 §3.1): RSA keys verify RS*/PS*, P-256 only ES256, P-384
    /// only ES384, and a JWK that names its `alg` verifies only that one.
    bool CanVerify(JwsAlgorithm alg) const;

   private:
    KeyType type_;
    std::string kid_;
    std::string jwk_alg_;
    std::string curve_;
    int bits_;
    std::shared_ptr<evp_pkey_st> key_;
    std::shared_ptr<VerifyContexts> contexts_;
};

using PublicKeyPtr = std::shared_ptr<const PublicKey>;

/// A parsed JWKS: the usable signing keys, and why the others were skipped (for logs).
struct KeySet {
    std::vector<PublicKeyPtr> keys;
    std::vector<std::string> skipped;
};

/// Imports one public JWK (kty RSA with n/e, or kty EC with crv/x/y). Private members are ignored,
/// symmetric ("oct") keys and encryption keys are refused. RSA keys below 1024 bits are refused.
Result<PublicKey> ParseJwk(const Json& jwk);

/// Parses a JWKS document ({"keys":[...]}); unusable keys are skipped, not fatal.
Result<KeySet> ParseJwks(std::string_view json_text);

}  // namespace orch::auth
