#include "orchestrator/auth/authenticator.hpp"

#include <cctype>

namespace orch::auth {
namespace {

class DisabledAuthenticator final : public Authenticator {
   public:
    Result<Principal> Authenticate(std::string_view /*authorization_header_value*/) override {
        return LocalPrincipal();
    }
};

bool IsToken68Char(unsigned char c) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return alnum || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

std::string_view Trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace

Result<std::string_view> ExtractBearerToken(std::string_view header_value, std::size_t max_token_bytes) {
    const std::string_view value = Trim(header_value);
    constexpr std::string_view kScheme = "bearer";
    bool is_bearer = value.size() >= kScheme.size();
    for (std::size_t i = 0; is_bearer && i < kScheme.size(); ++i) {
        is_bearer = std::tolower(static_cast<unsigned char>(value[i])) == kScheme[i];
    }
    if (!is_bearer ||
        (value.size() > kScheme.size() && value[kScheme.size()] != ' ' && value[kScheme.size()] != '\t')) {
        return Error::Unauthenticated(std::string(kFullAuthenticationRequired))
            .WithChallenge(AuthChallenge::kTokenMissing);
    }
    const std::string_view token = Trim(value.substr(kScheme.size()));
    if (token.empty()) {
        return Error::Unauthenticated(
            std::string(kInvalidTokenPrefix) + "the Authorization header has no token after 'Bearer'"
        );
    }
    if (token.size() > max_token_bytes) {
        return Error::Unauthenticated(
            std::string(kInvalidTokenPrefix) + "the token is larger than " + std::to_string(max_token_bytes) + " bytes"
        );
    }
    std::size_t end = token.size();
    while (end > 0 && token[end - 1] == '=') {
        --end;  // token68 allows trailing '=' padding
    }
    for (std::size_t i = 0; i < end; ++i) {
        if (!IsToken68Char(static_cast<unsigned char>(token[i]))) {
            return Error::Unauthenticated(std::string(kInvalidTokenPrefix) + "malformed Authorization header");
        }
    }
    if (end == 0) {
        return Error::Unauthenticated(std::string(kInvalidTokenPrefix) + "malformed Authorization header");
    }
    return token;
}

std::unique_ptr<Authenticator> MakeDisabledAuthenticator() {
    return std::make_unique<DisabledAuthenticator>();
}

}  // namespace orch::auth
