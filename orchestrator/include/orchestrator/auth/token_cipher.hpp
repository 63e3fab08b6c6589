#pragma once

#include "common/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace orch::auth {

/// Encryption of refresh tokens at rest: AES-256-GCM (OpenSSL EVP), a fresh 96-bit nonce per
/// message, and associated data binding each ciphertext to its owner, so a row copied onto another
/// user does not decrypt. Output "v1.<key id>.<base64(nonce|ciphertext|tag)>"; the key id (a hash
/// prefix, not the key) lets old ciphertexts open with a previous key after a key rotation.
class TokenCipher {
   public:
    /// `key` and each of `previous_keys` are 32 raw bytes; new ciphertexts always use `key`.
    static Result<TokenCipher> Create(std::string key, std::vector<std::string> previous_keys = {});

    Result<std::string> Seal(std::string_view plaintext, std::string_view associated_data) const;
    /// Fails (kInternal) on a wrong key, tampering, or other associated data.
    Result<std::string> Open(std::string_view sealed, std::string_view associated_data) const;

   private:
    struct Key {
        std::string id;
        std::string bytes;
    };
    explicit TokenCipher(std::vector<Key> keys) : keys_(std::move(keys)) {}

    std::vector<Key> keys_;  // [0] seals
};

/// The associated data used for a user's refresh token: issuer and subject.
std::string RefreshTokenContext(std::string_view issuer, std::string_view subject);

}  // namespace orch::auth
