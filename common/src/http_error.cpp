#include "common/http_error.hpp"

namespace orch {
namespace {

// RFC 6750 §3: error_description and scope use %x20-21 / %x23-5B / %x5D-7E (no '"', no '\').
std::string QuotedSafe(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 300)) {
        out.push_back(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? c : '\'');
    }
    return out;
}

std::string Joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : " ") + item;
    }
    return out;
}

// Only 401s and 403s carry a challenge, whatever the details say (an error passed on under
// another kind keeps its details). A 401 without a token gets the bare challenge (RFC 6750 §3.1:
// no error code when the request had no authentication information); every other 401 is about
// the token.
std::string BearerChallenge(const Error& error) {
    const std::string realm = "Bearer realm=\"oauth\"";
    if (error.code == ErrorCode::kUnauthenticated) {
        if (error.details.challenge == AuthChallenge::kTokenMissing) {
            return realm;
        }
        return realm + ", error=\"invalid_token\", error_description=\"" + QuotedSafe(error.message) + "\"";
    }
    if (error.code == ErrorCode::kPermissionDenied && error.details.challenge == AuthChallenge::kInsufficientScope) {
        return realm + ", error=\"insufficient_scope\", error_description=\"" +
               std::string(kInsufficientScopeDescription) + "\", scope=\"" + QuotedSafe(Joined(error.details.scopes)) +
               "\"";
    }
    return {};
}

}  // namespace

HttpError HttpErrorFor(const Error& error, std::string_view request_id) {
    HttpError out;
    out.status = HttpStatusFor(error.code);
    out.message = error.message;
    out.log_text = error.details.log_message;
    if (out.status == 500) {
        // A 500's text is internal (database, library, exception messages): the log gets it,
        // stamped with the request id, and the client gets the id to quote instead.
        out.log_text = error.message + (error.message.empty() || out.log_text.empty() ? "" : ": ") + out.log_text;
        if (out.log_text.empty()) {
            out.log_text = "(no detail)";  // every 500 is logged, so the id the client quotes is found
        }
        out.message = "The request failed because of an internal error" +
                      (request_id.empty() ? std::string() : " (request " + std::string(request_id) + ")") +
                      "; the server log has the details";
    }
    if (auto challenge = BearerChallenge(error); !challenge.empty()) {
        out.headers.emplace_back("WWW-Authenticate", std::move(challenge));
    }
    if (error.details.retry_after) {
        out.headers.emplace_back("Retry-After", std::to_string(error.details.retry_after->count()));
    }
    return out;
}

}  // namespace orch
