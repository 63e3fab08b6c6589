#pragma once

#include "common/error.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch {

/// The error_description of an insufficient_scope challenge (and the start of the 403's message).
inline constexpr std::string_view kInsufficientScopeDescription = "Insufficient scope for this resource";

/// An Error as the HTTP answer renders it: what the client sees, and what only the log sees.
struct HttpError {
    int status = 500;
    std::string message;                                       ///< the body's `message`: never internal text
    std::vector<std::pair<std::string, std::string>> headers;  ///< WWW-Authenticate, Retry-After
    std::string log_text;  ///< internal text to log with the request id ("" = nothing to log)
};

/// The one mapping from an Error to its HTTP answer, read from the kind and the typed details:
/// the status (HttpStatusFor), `WWW-Authenticate` from the challenge and scopes (RFC 6750 §3),
/// `Retry-After` from the retry hint, and for kInternal a generic message quoting `request_id`
/// (the error's own text goes to `log_text`).
HttpError HttpErrorFor(const Error& error, std::string_view request_id);

}  // namespace orch
