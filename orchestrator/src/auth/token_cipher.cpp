#include "orchestrator/auth/token_cipher.hpp"

#include "auth/openssl_ptr.hpp"
#include "orchestrator/auth/base64.hpp"
#include "orchestrator/auth/token_hash.hpp"

#include <openssl/rand.h>

namespace orch::auth {
namespace {

constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
constexpr std::string_view kVersion = "v1";

const unsigned char* Bytes(std::string_view text) {
    return reinterpret_cast<const unsigned char*>(text.data());
}
unsigned char* Bytes(std::string& text) {
    return reinterpret_cast<unsigned char*>(text.data());
}
int Len(std::size_t size) {
    return static_cast<int>(size);
}

std::string KeyId(const std::string& key) {
    return TokenLogId("orch-token-key\n" + key).substr(0, 8);
}

Result<std::string> Gcm(
    bool encrypt,
    const std::string& key,
    std::string_view nonce,
    std::string_view aad,
    std::string_view input,
    std::string& tag
) {
    ossl::CipherCtx ctx(EVP_CIPHER_CTX_new());
    std::string out(input.size() + 16, '\0');
    int len = 0;
    int total = 0;
    const bool ok = ctx &&
                    EVP_CipherInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr, encrypt ? 1 : 0) == 1 &&
                    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, Len(kNonceBytes), nullptr) == 1 &&
                    EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, Bytes(key), Bytes(nonce), encrypt ? 1 : 0) == 1 &&
                    EVP_CipherUpdate(ctx.get(), nullptr, &len, Bytes(aad), Len(aad.size())) == 1 &&
                    EVP_CipherUpdate(ctx.get(), Bytes(out), &len, Bytes(input), Len(input.size())) == 1;
    if (!ok) {
        return Error::Internal("token encryption failed: " + ossl::LastError());
    }
    total = len;
    if (!encrypt && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, Len(kTagBytes), tag.data()) != 1) {
        return Error::Internal("token decryption failed: " + ossl::LastError());
    }
    if (EVP_CipherFinal_ex(ctx.get(), Bytes(out) + total, &len) != 1) {
        ERR_clear_error();
        return Error::Internal("the stored token does not decrypt (wrong key, or altered)");
    }
    total += len;
    if (encrypt) {
        tag.assign(kTagBytes, '\0');
        if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, Len(kTagBytes), tag.data()) != 1) {
            return Error::Internal("token encryption failed: " + ossl::LastError());
        }
    }
    out.resize(static_cast<std::size_t>(total));
    return out;
}

}  // namespace

Result<TokenCipher> TokenCipher::Create(std::string key, std::vector<std::string> previous_keys) {
    std::vector<Key> keys;
    previous_keys.insert(previous_keys.begin(), std::move(key));
    for (auto& bytes : previous_keys) {
        if (bytes.size() != kKeyBytes) {
            return Error::InvalidArgument("a token encryption key must be 32 bytes");
        }
        std::string id = KeyId(bytes);
        keys.push_back(Key{std::move(id), std::move(bytes)});
    }
    return TokenCipher(std::move(keys));
}

Result<std::string> TokenCipher::Seal(std::string_view plaintext, std::string_view associated_data) const {
    std::string nonce(kNonceBytes, '\0');
    if (RAND_bytes(Bytes(nonce), Len(kNonceBytes)) != 1) {
        return Error::Internal("no randomness for a nonce: " + ossl::LastError());
    }
    std::string tag;
    auto ciphertext = Gcm(true, keys_.front().bytes, nonce, associated_data, plaintext, tag);
    if (!ciphertext) {
        return std::move(ciphertext).error();
    }
    return std::string(kVersion) + "." + keys_.front().id + "." + Base64Encode(nonce + *ciphertext + tag);
}

Result<std::string> TokenCipher::Open(std::string_view sealed, std::string_view associated_data) const {
    const auto first = sealed.find('.');
    const auto second = first == std::string_view::npos ? first : sealed.find('.', first + 1);
    if (second == std::string_view::npos || sealed.substr(0, first) != kVersion) {
        return Error::Internal("the stored token is not in a known format");
    }
    const std::string_view key_id = sealed.substr(first + 1, second - first - 1);
    const Key* key = nullptr;
    for (const auto& candidate : keys_) {
        if (candidate.id == key_id) {
            key = &candidate;
        }
    }
    if (key == nullptr) {
        return Error::Internal("the stored token was sealed with a key that is not configured (auth.token_key rotated?)"
        );
    }
    auto blob = Base64Decode(sealed.substr(second + 1));
    if (!blob || blob->size() < kNonceBytes + kTagBytes) {
        return Error::Internal("the stored token is not in a known format");
    }
    const std::string_view view(*blob);
    std::string tag(view.substr(view.size() - kTagBytes));
    return Gcm(
        false,
        key->bytes,
        view.substr(0, kNonceBytes),
        associated_data,
        view.substr(kNonceBytes, view.size() - kNonceBytes - kTagBytes),
        tag
    );
}

std::string RefreshTokenContext(std::string_view issuer, std::string_view subject) {
    return "orch-refresh-token\n" + std::string(issuer) + "\n" + std::string(subject);
}

}  // namespace orch::auth
