#include "orchestrator/auth/jws.hpp"

#include "auth/openssl_ptr.hpp"
#include "auth/verify_contexts.hpp"
#include "orchestrator/auth/base64.hpp"

#include <openssl/evp.h>
#include <openssl/rsa.h>

namespace orch::auth {
namespace {

Error Malformed(const std::string& why) {
    return Error::InvalidArgument(why);
}

Result<Json> DecodeJsonPart(std::string_view part, const char* name, int depth) {
    auto bytes = Base64UrlDecode(part);
    if (!bytes) {
        return Malformed(std::string("the ") + name + " is not base64url");
    }
    auto json = ParseJson(*bytes, depth);
    if (!json || !json->is_object()) {
        return Malformed(std::string("the ") + name + " is not a JSON object");
    }
    return std::move(*json);
}

// Message digests are fetched once: a per-call implicit fetch takes a global lock in OpenSSL 3.
const EVP_MD* Digest(JwsAlgorithm alg) {
    static const EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    static const EVP_MD* const kSha384 = EVP_MD_fetch(nullptr, "SHA384", nullptr);
    static const EVP_MD* const kSha512 = EVP_MD_fetch(nullptr, "SHA512", nullptr);
    switch (alg) {
        case JwsAlgorithm::kRs256:
        case JwsAlgorithm::kPs256:
        case JwsAlgorithm::kEs256:
            return kSha256;
        case JwsAlgorithm::kRs384:
        case JwsAlgorithm::kPs384:
        case JwsAlgorithm::kEs384:
            return kSha384;
        case JwsAlgorithm::kRs512:
        case JwsAlgorithm::kPs512:
            return kSha512;
    }
    return kSha256;
}

bool IsPss(JwsAlgorithm alg) {
    return alg == JwsAlgorithm::kPs256 || alg == JwsAlgorithm::kPs384 || alg == JwsAlgorithm::kPs512;
}

bool IsEcdsa(JwsAlgorithm alg) {
    return alg == JwsAlgorithm::kEs256 || alg == JwsAlgorithm::kEs384;
}

// JWS carries ECDSA signatures as fixed-size R||S (RFC 7518 §3.4); OpenSSL wants DER.
Result<std::string> RawEcdsaToDer(std::string_view raw, std::size_t coordinate_bytes) {
    if (raw.size() != 2 * coordinate_bytes) {
        return Error::Unauthenticated("the ECDSA signature has the wrong length");
    }
    ossl::Bn r = ossl::BnFromBytes(std::string(raw.substr(0, coordinate_bytes)));
    ossl::Bn s = ossl::BnFromBytes(std::string(raw.substr(coordinate_bytes)));
    ossl::EcdsaSig sig(ECDSA_SIG_new());
    if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) {
        return Error::Internal("cannot build an ECDSA signature: " + ossl::LastError());
    }
    static_cast<void>(r.release());  // owned by sig now
    static_cast<void>(s.release());
    unsigned char* der = nullptr;
    const int len = i2d_ECDSA_SIG(sig.get(), &der);
    if (len <= 0) {
        return Error::Internal("cannot encode an ECDSA signature: " + ossl::LastError());
    }
    std::string out(reinterpret_cast<const char*>(der), static_cast<std::size_t>(len));
    OPENSSL_free(der);
    return out;
}

Status ConfigurePss(EVP_PKEY_CTX* pctx, const EVP_MD* md) {
    if (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1 ||
        EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) != 1) {
        return Error::Internal("cannot set up RSA-PSS: " + ossl::LastError());
    }
    return Ok();
}

// Copies the key's prepared context for `alg` into `work`, preparing it on first use.
Status PrepareFromPrototype(JwsAlgorithm alg, const PublicKey& key, EVP_MD_CTX* work) {
    VerifyContexts& contexts = key.verify_contexts();
    const std::lock_guard lock(contexts.mutex);
    EVP_MD_CTX*& prototype = contexts.prototypes.at(static_cast<std::size_t>(alg));
    if (prototype == nullptr) {
        const EVP_MD* md = Digest(alg);
        ossl::MdCtx fresh(EVP_MD_CTX_new());
        EVP_PKEY_CTX* pctx = nullptr;  // owned by the context
        if (!fresh || md == nullptr || EVP_DigestVerifyInit(fresh.get(), &pctx, md, nullptr, key.native()) != 1) {
            return Error::Internal("cannot start signature verification: " + ossl::LastError());
        }
        if (IsPss(alg)) {
            ORCH_RETURN_IF_ERROR(ConfigurePss(pctx, md));
        }
        prototype = fresh.release();
    }
    if (work == nullptr || EVP_MD_CTX_copy_ex(work, prototype) != 1) {
        return Error::Internal("cannot copy a verification context: " + ossl::LastError());
    }
    return Ok();
}

}  // namespace

Result<CompactJws> ParseCompactJws(std::string_view token, const JwsLimits& limits) {
    if (token.size() > limits.max_token_bytes) {
        return Malformed("the token is larger than " + std::to_string(limits.max_token_bytes) + " bytes");
    }
    const auto first = token.find('.');
    const auto second = first == std::string_view::npos ? first : token.find('.', first + 1);
    if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
        return Malformed("not a signed JWT (expected three dot-separated parts)");
    }
    CompactJws jws;
    auto header = DecodeJsonPart(token.substr(0, first), "JWT header", limits.max_json_depth);
    if (!header) {
        return std::move(header).error();
    }
    auto payload = DecodeJsonPart(token.substr(first + 1, second - first - 1), "JWT payload", limits.max_json_depth);
    if (!payload) {
        return std::move(payload).error();
    }
    auto signature = Base64UrlDecode(token.substr(second + 1));
    if (!signature) {
        return Malformed("the JWT signature is not base64url");
    }
    jws.header = std::move(*header);
    jws.payload = std::move(*payload);
    jws.signing_input = token.substr(0, second);
    jws.signature = std::move(*signature);
    return jws;
}

Status VerifyJwsSignature(
    JwsAlgorithm alg, const PublicKey& key, std::string_view signing_input, std::string_view signature
) {
    if (!key.CanVerify(alg)) {
        return Error::Unauthenticated(
            "key '" + key.kid() + "' is not usable with algorithm " + std::string(JwsAlgorithmName(alg))
        );
    }
    std::string der;
    if (IsEcdsa(alg)) {
        auto converted = RawEcdsaToDer(signature, static_cast<std::size_t>(key.bits() / 8));
        if (!converted) {
            return std::move(converted).error();
        }
        der = std::move(*converted);
        signature = der;
    }
    // One working context per thread, refilled from the key's prepared prototype on each call.
    thread_local ossl::MdCtx work(EVP_MD_CTX_new());
    ORCH_RETURN_IF_ERROR(PrepareFromPrototype(alg, key, work.get()));
    EVP_MD_CTX* ctx = work.get();
    const int rc = EVP_DigestVerify(
        ctx,
        reinterpret_cast<const unsigned char*>(signature.data()),
        signature.size(),
        reinterpret_cast<const unsigned char*>(signing_input.data()),
        signing_input.size()
    );
    if (rc != 1) {
        ERR_clear_error();
        return Error::Unauthenticated("the signature does not verify");
    }
    return Ok();
}

}  // namespace orch::auth
