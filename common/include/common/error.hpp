#pragma once

#include <string>
#include <string_view>

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

/// An error value: a kind and a message a user can act on.
struct Error {
    ErrorCode code = ErrorCode::kInternal;
    std::string message;

    static Error InvalidArgument(std::string msg) { return {ErrorCode::kInvalidArgument, std::move(msg)}; }
    static Error NotFound(std::string msg) { return {ErrorCode::kNotFound, std::move(msg)}; }
    static Error Conflict(std::string msg) { return {ErrorCode::kConflict, std::move(msg)}; }
    static Error Unauthenticated(std::string msg) { return {ErrorCode::kUnauthenticated, std::move(msg)}; }
    static Error PermissionDenied(std::string msg) { return {ErrorCode::kPermissionDenied, std::move(msg)}; }
    static Error Unavailable(std::string msg) { return {ErrorCode::kUnavailable, std::move(msg)}; }
    static Error DeadlineExceeded(std::string msg) { return {ErrorCode::kDeadlineExceeded, std::move(msg)}; }
    static Error ResourceExhausted(std::string msg) { return {ErrorCode::kResourceExhausted, std::move(msg)}; }
    static Error Internal(std::string msg) { return {ErrorCode::kInternal, std::move(msg)}; }
};

/// The one mapping from error kinds to HTTP status codes.
int HttpStatusFor(ErrorCode code);

/// The HTTP reason phrase for a status ("Not Found"), used as the `title` of error bodies.
std::string_view HttpReasonPhrase(int status);

/// A stable lowercase name for logs and metrics ("invalid_argument").
std::string_view ErrorCodeName(ErrorCode code);

}  // namespace orch
