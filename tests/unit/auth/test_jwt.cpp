#include "test_jwt.hpp"

#include "orchestrator/auth/base64.hpp"
#include "rsa_key_pool.hpp"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <chrono>
#include <stdexcept>
#include <vector>

namespace orch::test {
namespace {

using auth::Base64UrlEncode;

std::string BnBytes(const EVP_PKEY* key, const char* name, int pad_to = 0) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) {
        throw std::runtime_error(std::string("no key parameter ") + name);
    }
    const int size = pad_to > 0 ? pad_to : BN_num_bytes(bn);
    std::string out(static_cast<std::size_t>(size), '\0');
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), size);
    BN_free(bn);
    return out;
}

const EVP_MD* DigestFor(std::string_view alg) {
    const std::string bits(alg.substr(2));
    return bits == "384" ? EVP_sha384() : bits == "512" ? EVP_sha512() : EVP_sha256();
}

std::string DerToRaw(const std::string& der, int coord) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
    if (sig == nullptr) {
        throw std::runtime_error("bad DER signature");
    }
    std::string raw(static_cast<std::size_t>(2 * coord), '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()), coord);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(raw.data()) + coord, coord);
    ECDSA_SIG_free(sig);
    return raw;
}

}  // namespace

TestKey::TestKey(std::string kid, std::shared_ptr<evp_pkey_st> key, bool ec, int coord_bytes)
    : kid_(std::move(kid)), key_(std::move(key)), ec_(ec), coord_bytes_(coord_bytes) {}

TestKey TestKey::Rsa(std::string kid, int bits) {
    // Distinct keys within a process either way: the pool's first, then freshly generated ones.
    EVP_PKEY* key = bits == 2048 ? TakePooledRsa2048() : nullptr;
    if (key == nullptr) {
        key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits));
    }
    if (key == nullptr) {
        throw std::runtime_error("RSA keygen failed");
    }
    return TestKey(std::move(kid), std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free), false, 0);
}

TestKey TestKey::Ec(std::string kid, std::string_view curve) {
    const bool p384 = curve == "P-384";
    EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", p384 ? "secp384r1" : "prime256v1");
    if (key == nullptr) {
        throw std::runtime_error("EC keygen failed");
    }
    return TestKey(std::move(kid), std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free), true, p384 ? 48 : 32);
}

Json TestKey::PublicJwk(std::string_view alg) const {
    Json jwk;
    if (ec_) {
        jwk = {
            {"kty", "EC"},
            {"crv", coord_bytes_ == 48 ? "P-384" : "P-256"},
            {"x", Base64UrlEncode(BnBytes(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X, coord_bytes_))},
            {"y", Base64UrlEncode(BnBytes(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, coord_bytes_))}};
    } else {
        jwk = {
            {"kty", "RSA"},
            {"n", Base64UrlEncode(BnBytes(key_.get(), OSSL_PKEY_PARAM_RSA_N))},
            {"e", Base64UrlEncode(BnBytes(key_.get(), OSSL_PKEY_PARAM_RSA_E))}};
    }
    jwk["kid"] = kid_;
    jwk["use"] = "sig";
    if (!alg.empty()) {
        jwk["alg"] = std::string(alg);
    }
    return jwk;
}

std::string TestKey::PublicPem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, key_.get());
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    return pem;
}

std::string TestKey::Sign(std::string_view alg, std::string_view input) const {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX* pctx = nullptr;
    EVP_DigestSignInit(ctx, &pctx, DigestFor(alg), nullptr, key_.get());
    if (alg.substr(0, 2) == "PS") {
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    size_t len = 0;
    EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
    std::string sig(len, '\0');
    if (EVP_DigestSign(
            ctx,
            reinterpret_cast<unsigned char*>(sig.data()),
            &len,
            reinterpret_cast<const unsigned char*>(input.data()),
            input.size()
        ) != 1) {
        EVP_MD_CTX_free(ctx);
        throw std::runtime_error("signing failed");
    }
    EVP_MD_CTX_free(ctx);
    sig.resize(len);
    return ec_ ? DerToRaw(sig, coord_bytes_) : sig;
}

std::string SigningInput(const Json& header, const Json& payload) {
    return Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(payload.dump());
}

std::string SignJwt(const TestKey& key, std::string_view alg, const Json& payload, const Json& extra_header) {
    Json header = {{"alg", std::string(alg)}, {"kid", key.kid()}};
    for (const auto& [name, value] : extra_header.items()) {
        header[name] = value;
    }
    const std::string input = SigningInput(header, payload);
    return input + "." + Base64UrlEncode(key.Sign(alg, input));
}

std::string SignHs256(std::string_view secret, const Json& header, const Json& payload) {
    const std::string input = SigningInput(header, payload);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(
        EVP_sha256(),
        secret.data(),
        static_cast<int>(secret.size()),
        reinterpret_cast<const unsigned char*>(input.data()),
        input.size(),
        mac,
        &len
    );
    return input + "." + Base64UrlEncode(std::string(reinterpret_cast<const char*>(mac), len));
}

std::string UnsignedJwt(const Json& payload) {
    return SigningInput({{"alg", "none"}}, payload) + ".";
}

std::int64_t EpochSeconds(std::int64_t offset_seconds) {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
               .count() +
           offset_seconds;
}

}  // namespace orch::test
