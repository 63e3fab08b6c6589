#include "orchestrator/auth/token_hash.hpp"

#include <openssl/evp.h>

namespace orch::auth {

std::string TokenDigest(std::string_view token) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    static const EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (EVP_Digest(token.data(), token.size(), out, &len, kSha256, nullptr) != 1) {
        return {};
    }
    return std::string(reinterpret_cast<const char*>(out), len);
}

std::string TokenLogId(std::string_view token) {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::string digest = TokenDigest(token);
    std::string out;
    for (std::size_t i = 0; i < 6 && i < digest.size(); ++i) {
        const auto byte = static_cast<unsigned char>(digest[i]);
        out.push_back(kHex[byte >> 4]);
        out.push_back(kHex[byte & 15]);
    }
    return out;
}

}  // namespace orch::auth
