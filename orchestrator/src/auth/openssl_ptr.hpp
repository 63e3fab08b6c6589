#pragma once

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>
#include <string>

namespace orch::auth::ossl {

// unique_ptr aliases so every OpenSSL object is freed on every path.
struct BnFree {
    void operator()(BIGNUM* p) const { BN_free(p); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct PkeyCtxFree {
    void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct ParamBldFree {
    void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
};
struct ParamFree {
    void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct EcdsaSigFree {
    void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};
struct CipherCtxFree {
    void operator()(EVP_CIPHER_CTX* p) const { EVP_CIPHER_CTX_free(p); }
};

using Bn = std::unique_ptr<BIGNUM, BnFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
using ParamBld = std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree>;
using Params = std::unique_ptr<OSSL_PARAM, ParamFree>;
using EcdsaSig = std::unique_ptr<ECDSA_SIG, EcdsaSigFree>;
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

inline std::shared_ptr<EVP_PKEY> SharePkey(EVP_PKEY* key) {
    return {key, EVP_PKEY_free};
}

/// The oldest queued OpenSSL error as text (and clears the queue, so errors never leak between calls).
inline std::string LastError() {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) {
        return "unknown OpenSSL error";
    }
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    return buf;
}

/// Big-endian unsigned bytes → BIGNUM.
inline Bn BnFromBytes(const std::string& bytes) {
    return Bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr));
}

}  // namespace orch::auth::ossl
