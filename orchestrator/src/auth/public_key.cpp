#include "orchestrator/auth/public_key.hpp"

#include "auth/openssl_ptr.hpp"
#include "auth/verify_contexts.hpp"
#include "orchestrator/auth/base64.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <algorithm>

namespace orch::auth {
namespace {

constexpr int kMinRsaBits = 1024;  // IAM's own docs show 1024-bit keys; below that is broken
constexpr std::size_t kMaxJwksBytes = 1u << 20;
constexpr std::size_t kMaxKeysPerSet = 64;

Error JwkError(const std::string& kid, const std::string& what) {
    return Error::InvalidArgument("JWK '" + kid + "': " + what);
}

Result<std::string> Member(const Json& jwk, const char* name, const std::string& kid) {
    const auto it = jwk.find(name);
    if (it == jwk.end() || !it->is_string()) {
        return JwkError(kid, std::string("missing member '") + name + "'");
    }
    auto bytes = Base64UrlDecode(it->get_ref<const std::string&>());
    if (!bytes || bytes->empty()) {
        return JwkError(kid, std::string("member '") + name + "' is not base64url");
    }
    return *bytes;
}

// Builds a public EVP_PKEY of `type_name` from parameters, the OpenSSL 3 way (no deprecated RSA_/EC_KEY calls).
Result<std::shared_ptr<EVP_PKEY>> FromData(const char* type_name, OSSL_PARAM_BLD* bld, const std::string& kid) {
    ossl::Params params(OSSL_PARAM_BLD_to_param(bld));
    ossl::PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type_name, nullptr));
    EVP_PKEY* raw = nullptr;
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
        EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
        return JwkError(kid, "cannot import key: " + ossl::LastError());
    }
    auto key = ossl::SharePkey(raw);
    // fromdata does not promise a point on the curve or a sane modulus; check once here.
    ossl::PkeyCtx check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
    if (!check || EVP_PKEY_public_check(check.get()) != 1) {
        return JwkError(kid, "invalid public key: " + ossl::LastError());
    }
    return key;
}

Result<PublicKey> ParseRsa(const Json& jwk, const std::string& kid, const std::string& alg) {
    auto n = Member(jwk, "n", kid);
    auto e = Member(jwk, "e", kid);
    if (!n || !e) {
        return n ? std::move(e).error() : std::move(n).error();
    }
    ossl::Bn bn_n = ossl::BnFromBytes(*n);
    ossl::Bn bn_e = ossl::BnFromBytes(*e);
    ossl::ParamBld bld(OSSL_PARAM_BLD_new());
    if (!bn_n || !bn_e || !bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
        return JwkError(kid, "cannot import key: " + ossl::LastError());
    }
    const int bits = BN_num_bits(bn_n.get());
    if (bits < kMinRsaBits) {
        return JwkError(kid, "RSA key of " + std::to_string(bits) + " bits is too small");
    }
    auto key = FromData("RSA", bld.get(), kid);
    if (!key) {
        return std::move(key).error();
    }
    return PublicKey(KeyType::kRsa, kid, alg, "", bits, std::move(*key));
}

Result<PublicKey> ParseEc(const Json& jwk, const std::string& kid, const std::string& alg) {
    const auto crv_it = jwk.find("crv");
    const std::string crv = crv_it != jwk.end() && crv_it->is_string() ? crv_it->get<std::string>() : "";
    std::size_t coord = 0;
    const char* group = nullptr;
    if (crv == "P-256") {
        coord = 32;
        group = "prime256v1";
    } else if (crv == "P-384") {
        coord = 48;
        group = "secp384r1";
    } else {
        return JwkError(kid, "unsupported EC curve '" + crv + "'");
    }
    auto x = Member(jwk, "x", kid);
    auto y = Member(jwk, "y", kid);
    if (!x || !y) {
        return x ? std::move(y).error() : std::move(x).error();
    }
    if (x->size() != coord || y->size() != coord) {
        return JwkError(kid, "EC coordinates have the wrong length for " + crv);
    }
    const std::string point = std::string(1, '\x04') + *x + *y;  // uncompressed SEC1 point
    ossl::ParamBld bld(OSSL_PARAM_BLD_new());
    if (!bld || OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1) {
        return JwkError(kid, "cannot import key: " + ossl::LastError());
    }
    auto key = FromData("EC", bld.get(), kid);
    if (!key) {
        return std::move(key).error();
    }
    return PublicKey(KeyType::kEc, kid, alg, crv, static_cast<int>(coord * 8), std::move(*key));
}

bool IsSigningKey(const Json& jwk) {
    if (const auto use = jwk.find("use"); use != jwk.end() && (!use->is_string() || *use != "sig")) {
        return false;
    }
    if (const auto ops = jwk.find("key_ops"); ops != jwk.end()) {
        return ops->is_array() && std::find(ops->begin(), ops->end(), Json("verify")) != ops->end();
    }
    return true;
}

}  // namespace

PublicKey::PublicKey(
    KeyType type, std::string kid, std::string jwk_alg, std::string curve, int bits, std::shared_ptr<evp_pkey_st> key
)
    : type_(type),
      kid_(std::move(kid)),
      jwk_alg_(std::move(jwk_alg)),
      curve_(std::move(curve)),
      bits_(bits),
      key_(std::move(key)),
      contexts_(std::make_shared<VerifyContexts>()) {}

bool PublicKey::CanVerify(JwsAlgorithm alg) const {
    if (!jwk_alg_.empty() && jwk_alg_ != JwsAlgorithmName(alg)) {
        return false;
    }
    switch (alg) {
        case JwsAlgorithm::kRs256:
        case JwsAlgorithm::kRs384:
        case JwsAlgorithm::kRs512:
        case JwsAlgorithm::kPs256:
        case JwsAlgorithm::kPs384:
        case JwsAlgorithm::kPs512:
            return type_ == KeyType::kRsa;
        case JwsAlgorithm::kEs256:
            return type_ == KeyType::kEc && curve_ == "P-256";
        case JwsAlgorithm::kEs384:
            return type_ == KeyType::kEc && curve_ == "P-384";
    }
    return false;
}

Result<PublicKey> ParseJwk(const Json& jwk) {
    if (!jwk.is_object()) {
        return Error::InvalidArgument("JWK: not a JSON object");
    }
    const std::string kid = jwk.contains("kid") && jwk["kid"].is_string() ? jwk["kid"].get<std::string>() : "";
    if (!IsSigningKey(jwk)) {
        return JwkError(kid, "not a signature verification key");
    }
    const std::string alg = jwk.contains("alg") && jwk["alg"].is_string() ? jwk["alg"].get<std::string>() : "";
    if (!alg.empty() && !ParseJwsAlgorithm(alg)) {
        return JwkError(kid, "algorithm '" + alg + "' is not accepted");
    }
    const std::string kty = jwk.contains("kty") && jwk["kty"].is_string() ? jwk["kty"].get<std::string>() : "";
    if (kty == "RSA") {
        return ParseRsa(jwk, kid, alg);
    }
    if (kty == "EC") {
        return ParseEc(jwk, kid, alg);
    }
    return JwkError(kid, "key type '" + kty + "' is not accepted");
}

Result<KeySet> ParseJwks(std::string_view json_text) {
    if (json_text.size() > kMaxJwksBytes) {
        return Error::InvalidArgument("JWKS document is larger than 1 MiB");
    }
    auto doc = ParseJson(json_text, 16);
    if (!doc) {
        return Error::InvalidArgument("JWKS document is not JSON: " + doc.error().message);
    }
    const auto keys = doc->find("keys");
    if (!doc->is_object() || keys == doc->end() || !keys->is_array()) {
        return Error::InvalidArgument("JWKS document has no 'keys' array");
    }
    KeySet set;
    for (const auto& jwk : *keys) {
        if (set.keys.size() >= kMaxKeysPerSet) {
            set.skipped.push_back("more than 64 keys: the rest are ignored");
            break;
        }
        auto key = ParseJwk(jwk);
        if (!key) {
            set.skipped.push_back(key.error().message);
            continue;
        }
        set.keys.push_back(std::make_shared<const PublicKey>(std::move(*key)));
    }
    return set;
}

}  // namespace orch::auth
