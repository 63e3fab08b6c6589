#include "common/error.hpp"

namespace orch {

int HttpStatusFor(ErrorCode code) {
    switch (code) {
        case ErrorCode::kInvalidArgument:
            return 400;
        case ErrorCode::kUnauthenticated:
            return 401;
        case ErrorCode::kPermissionDenied:
            return 403;
        case ErrorCode::kNotFound:
            return 404;
        case ErrorCode::kMethodNotAllowed:
            return 405;
        case ErrorCode::kConflict:
            return 409;
        case ErrorCode::kPayloadTooLarge:
            return 413;
        case ErrorCode::kUnsupportedMediaType:
            return 415;
        case ErrorCode::kResourceExhausted:
            return 429;
        case ErrorCode::kInternal:
            return 500;
        case ErrorCode::kUnavailable:
            return 503;
        case ErrorCode::kDeadlineExceeded:
            return 504;
    }
    return 500;
}

std::string_view HttpReasonPhrase(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 202:
            return "Accepted";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 408:
            return "Request Timeout";
        case 409:
            return "Conflict";
        case 411:
            return "Length Required";
        case 413:
            return "Payload Too Large";
        case 414:
            return "URI Too Long";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Entity";
        case 429:
            return "Too Many Requests";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 502:
            return "Bad Gateway";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        default:
            return "Unknown";
    }
}

std::string_view ErrorCodeName(ErrorCode code) {
    switch (code) {
        case ErrorCode::kInvalidArgument:
            return "invalid_argument";
        case ErrorCode::kNotFound:
            return "not_found";
        case ErrorCode::kConflict:
            return "conflict";
        case ErrorCode::kUnauthenticated:
            return "unauthenticated";
        case ErrorCode::kPermissionDenied:
            return "permission_denied";
        case ErrorCode::kMethodNotAllowed:
            return "method_not_allowed";
        case ErrorCode::kPayloadTooLarge:
            return "payload_too_large";
        case ErrorCode::kUnsupportedMediaType:
            return "unsupported_media_type";
        case ErrorCode::kResourceExhausted:
            return "resource_exhausted";
        case ErrorCode::kUnavailable:
            return "unavailable";
        case ErrorCode::kDeadlineExceeded:
            return "deadline_exceeded";
        case ErrorCode::kInternal:
            return "internal";
    }
    return "internal";
}

}  // namespace orch
