#include "orchestrator/auth/base64.hpp"

#include <catch2/catch.hpp>

using orch::auth::Base64Decode;
using orch::auth::Base64Encode;
using orch::auth::Base64UrlDecode;
using orch::auth::Base64UrlEncode;

TEST_CASE("base64url round-trips every length without padding") {
    std::string bytes;
    for (int i = 0; i < 70; ++i) {
        const std::string encoded = Base64UrlEncode(bytes);
        CHECK(encoded.find('=') == std::string::npos);
        const auto decoded = Base64UrlDecode(encoded);
        REQUIRE(decoded);
        CHECK(*decoded == bytes);
        bytes.push_back(static_cast<char>(i * 37 + 250));
    }
    CHECK(Base64UrlEncode("\xfb\xff") == "-_8");
}

TEST_CASE("base64url decoding is strict") {
    CHECK_FALSE(Base64UrlDecode("YQ=="));   // padding is not base64url in JWS
    CHECK_FALSE(Base64UrlDecode("Y"));      // a dangling sixth of a byte
    CHECK_FALSE(Base64UrlDecode("YR"));     // unused bits must be zero ("YQ" is the one encoding of "a")
    CHECK_FALSE(Base64UrlDecode("a+b/"));   // standard alphabet
    CHECK_FALSE(Base64UrlDecode("ab cd"));  // whitespace
    CHECK(Base64UrlDecode("YQ") == std::optional<std::string>("a"));
    CHECK(Base64UrlDecode("") == std::optional<std::string>(""));
}

TEST_CASE("standard base64 with padding") {
    CHECK(Base64Encode("orchestrator:s3cret") == "b3JjaGVzdHJhdG9yOnMzY3JldA==");
    CHECK(Base64Decode("b3JjaGVzdHJhdG9yOnMzY3JldA==") == std::optional<std::string>("orchestrator:s3cret"));
    CHECK_FALSE(Base64Decode("b3JjaGVzdHJhdG9yOnMzY3JldA"));  // missing padding
    CHECK_FALSE(Base64Decode("b3Jj-_=="));
}
