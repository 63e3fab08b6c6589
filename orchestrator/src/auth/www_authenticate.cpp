#include "orchestrator/auth/www_authenticate.hpp"

#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/auth/authorization.hpp"

namespace orch::auth {
namespace {

// RFC 6750 §3: error_description and scope use %x20-21 / %x23-5B / %x5D-7E (no '"', no '\').
std::string QuotedSafe(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 300)) {
        out.push_back(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? c : '\'');
    }
    return out;
}

}  // namespace

std::optional<std::string> WwwAuthenticateFor(const Error& error) {
    if (error.code == ErrorCode::kUnauthenticated) {
        if (error.message == kFullAuthenticationRequired) {
            return std::string("Bearer realm=\"oauth\"");
        }
        return "Bearer realm=\"oauth\", error=\"invalid_token\", error_description=\"" + QuotedSafe(error.message) +
               "\"";
    }
    if (error.code == ErrorCode::kPermissionDenied && error.message.rfind(kInsufficientScope, 0) == 0) {
        const std::string_view message = error.message;
        const auto open = message.find("scope=\"");
        std::string scopes;
        if (open != std::string_view::npos && message.size() > open + 8) {
            scopes = std::string(message.substr(open + 7, message.size() - open - 8));
        }
        return "Bearer realm=\"oauth\", error=\"insufficient_scope\", error_description=\"" +
               std::string(kInsufficientScope) + "\", scope=\"" + QuotedSafe(scopes) + "\"";
    }
    return std::nullopt;
}

}  // namespace orch::auth
