#pragma once

#include <openssl/evp.h>

#include <array>
#include <mutex>

namespace orch::auth {

/// Per-key OpenSSL contexts already set up for verification, one per JWS algorithm.
/// EVP_DigestVerifyInit fetches algorithm implementations through OpenSSL 3's locked provider
/// tables on every call, which costs about as much as the RSA operation itself; copying a
/// prepared context does not. The mutex covers only set-up and copying.
struct VerifyContexts {
    VerifyContexts() = default;
    VerifyContexts(const VerifyContexts&) = delete;
    VerifyContexts& operator=(const VerifyContexts&) = delete;
    ~VerifyContexts() {
        for (EVP_MD_CTX* ctx : prototypes) {
            EVP_MD_CTX_free(ctx);
        }
    }

    std::mutex mutex;
    std::array<EVP_MD_CTX*, 8> prototypes{};  // indexed by JwsAlgorithm
};

}  // namespace orch::auth
