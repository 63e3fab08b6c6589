#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch {

/// Canonical error kinds (after Abseil's list). They say what went wrong, not how to answer:
/// the HTTP status for each is decided in exactly one place, HttpStatusFor().
enum class ErrorCode {
    kInvalidArgument,       ///< the caller's input is wrong (400)
    kNotFound,              ///< the thing asked for does not exist or is not visible (404)
    kConflict,              ///< the thing exists but is in a state that forbids the request (409)
    kUnauthenticated,       ///< no or bad credentials (401)
    kPermissionDenied,      ///< credentials fine, not allowed (403)
    kMethodNotAllowed,      ///< known path, wrong method (405)
    kPayloadTooLarge,       ///< body over the configured limit (413)
    kUnsupportedMediaType,  ///< body is not of the accepted media type (415)
    kResourceExhausted,     ///< a bounded queue or quota is full (429)
    kUnavailable,           ///< a dependency (database, upstream) cannot be reached now; retry later (503)
    kDeadlineExceeded,      ///< a timeout expired (504)
    kInternal,              ///< a bug or an unexpected failure (500)
};

/// Which RFC 6750 challenge an authentication or authorization failure answers with.
enum class AuthChallenge {
    kNone,               ///< no WWW-Authenticate header
    kTokenMissing,       ///< `Bearer realm="oauth"`: the request carried no bearer token
    kInvalidToken,       ///< `error="invalid_token"` with the message as error_description (any other 401)
    kInsufficientScope,  ///< `error="insufficient_scope"` with ErrorDetails::scopes
};

/// What the HTTP mapping needs besides the kind and the client's message, as values: nothing is
/// parsed back out of message text.
struct ErrorDetails {
    AuthChallenge challenge = AuthChallenge::kNone;
    std::vector<std::string> scopes;                  ///< kInsufficientScope: the scopes that would do
    std::optional<std::chrono::seconds> retry_after;  ///< Retry-After: the request may succeed if repeated
    /// Internal text (database, library, upstream messages): logged with the request id, never
    /// sent to the client.
    std::string log_message;
};

/// An error value: a kind, a message a user can act on, and typed details.
struct Error {
    ErrorCode code = ErrorCode::kInternal;
    std::string message;  ///< the client's text (for kInternal: logged only, the client gets a generic text)
    ErrorDetails details{};

    static Error InvalidArgument(std::string msg) { return {ErrorCode::kInvalidArgument, std::move(msg)}; }
    static Error NotFound(std::string msg) { return {ErrorCode::kNotFound, std::move(msg)}; }
    static Error Conflict(std::string msg) { return {ErrorCode::kConflict, std::move(msg)}; }
    /// A 401 answered with `error="invalid_token"` unless its challenge says the token is missing.
    static Error Unauthenticated(std::string msg) { return {ErrorCode::kUnauthenticated, std::move(msg)}; }
    static Error PermissionDenied(std::string msg) { return {ErrorCode::kPermissionDenied, std::move(msg)}; }
    static Error Unavailable(std::string msg) { return {ErrorCode::kUnavailable, std::move(msg)}; }
    static Error DeadlineExceeded(std::string msg) { return {ErrorCode::kDeadlineExceeded, std::move(msg)}; }
    static Error ResourceExhausted(std::string msg) { return {ErrorCode::kResourceExhausted, std::move(msg)}; }
    static Error Internal(std::string msg) { return {ErrorCode::kInternal, std::move(msg)}; }

    Error WithChallenge(AuthChallenge challenge, std::vector<std::string> scopes = {}) && {
        details.challenge = challenge;
        details.scopes = std::move(scopes);
        return std::move(*this);
    }
    Error WithRetryAfter(std::chrono::seconds delay) && {
        details.retry_after = delay;
        return std::move(*this);
    }
    Error WithLogMessage(std::string text) && {
        details.log_message = std::move(text);
        return std::move(*this);
    }
};

/// The one mapping from error kinds to HTTP status codes.
int HttpStatusFor(ErrorCode code);

/// The HTTP reason phrase for a status ("Not Found"), used as the `title` of error bodies.
std::string_view HttpReasonPhrase(int status);

/// A stable lowercase name for logs and metrics ("invalid_argument").
std::string_view ErrorCodeName(ErrorCode code);

}  // namespace orch
