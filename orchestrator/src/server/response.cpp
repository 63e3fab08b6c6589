#include "orchestrator/server/response.hpp"

#include "common/http_error.hpp"
#include "common/json_text.hpp"
#include "common/log.hpp"

namespace orch::server {

namespace {

Response WithBody(int status, std::string body, std::string_view content_type) {
    Response r;
    r.status = status;
    r.body = std::move(body);
    r.content_type = std::string(content_type);
    return r;
}

Response ErrorBody(int status, std::string_view message) {
    Response r;
    r.status = status;
    r.content_type = std::string(kJsonContentType);
    r.body = "{\"code\":" + std::to_string(status) + ",\"title\":";
    AppendJsonString(r.body, HttpReasonPhrase(status));
    r.body += ",\"message\":";
    AppendJsonString(r.body, message);
    r.body += "}";
    return r;
}

}  // namespace

Response Response::Json(int status, const orch::Json& body) {
    // Replacement of invalid UTF-8 keeps a response valid JSON whatever users stored.
    return WithBody(status, body.dump(-1, ' ', false, orch::Json::error_handler_t::replace), kJsonContentType);
}

Response Response::JsonText(int status, std::string body) {
    return WithBody(status, std::move(body), kJsonContentType);
}

Response Response::Text(int status, std::string body) {
    return WithBody(status, std::move(body), kTextContentType);
}

Response Response::Empty(int status) {
    Response r;
    r.status = status;
    return r;
}

Response Response::Error(const orch::Error& error) {
    const HttpError mapped = HttpErrorFor(error, log::CurrentRequestId());
    if (!mapped.log_text.empty()) {
        // The log context stamps the line with the request id the client was given.
        const std::string_view text = mapped.log_text;
        if (mapped.status >= 500) {
            ORCH_LOG_ERROR("internal error", {{"error", std::string(text.substr(0, 2000))}});
        } else {
            ORCH_LOG_WARN("request failed", {{"error", std::string(text.substr(0, 2000))}});
        }
    }
    Response r = ErrorBody(mapped.status, mapped.message);
    for (const auto& [name, value] : mapped.headers) {
        r.WithHeader(name, value);
    }
    return r;
}

Response Response::ErrorWithStatus(int status, std::string_view message) {
    if (status == 500) {
        return Error(orch::Error::Internal(std::string(message)));
    }
    return ErrorBody(status, message);
}

Response Response::Stream(std::string content_type, std::shared_ptr<ResponseStream> stream) {
    Response r;
    r.status = 200;
    r.content_type = std::move(content_type);
    r.stream = std::move(stream);
    return r;
}

}  // namespace orch::server
