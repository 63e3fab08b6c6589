#include "orchestrator/server/response.hpp"

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
    return ErrorWithStatus(HttpStatusFor(error.code), error.message);
}

Response Response::ErrorWithStatus(int status, std::string_view message) {
    std::string generic;
    if (status == 500) {
        // A 500's text is internal (database, library, exception messages): it goes to the log,
        // stamped with the request id, and the client gets the id to quote instead.
        ORCH_LOG_ERROR("internal error", {{"error", std::string(message.substr(0, 2000))}});
        const std::string id = log::CurrentRequestId();
        generic = "The request failed because of an internal error" +
                  (id.empty() ? std::string() : " (request " + id + ")") + "; the server log has the details";
        message = generic;
    }
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

}  // namespace orch::server
