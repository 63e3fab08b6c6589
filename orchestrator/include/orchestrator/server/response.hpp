#pragma once

#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"
#include "orchestrator/server/response_stream.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace orch::server {

inline constexpr std::string_view kJsonContentType = "application/json;charset=UTF-8";
inline constexpr std::string_view kTextContentType = "text/plain;charset=UTF-8";

/// What a handler answers. Void successes (202/204) have an empty body and no content type.
struct Response {
    int status = 200;
    http::Headers headers;
    std::string body;
    std::string content_type;
    /// Set for a streamed body (then `body` is ignored): the server sends it chunked and closes
    /// the connection when it ends.
    std::shared_ptr<ResponseStream> stream;

    static Response Json(int status, const orch::Json& body);
    /// A body that is JSON text already (written with JsonWriter).
    static Response JsonText(int status, std::string body);
    static Response Text(int status, std::string body);
    static Response Empty(int status);
    /// A 200 whose body `stream` produces over time, in `content_type` (text/event-stream).
    static Response Stream(std::string content_type, std::shared_ptr<ResponseStream> stream);
    /// The contract's error body {code,title,message} and headers as HttpErrorFor maps the error
    /// (the one place errors become HTTP); internal text is logged with the request id.
    static Response Error(const orch::Error& error);
    /// An error the server itself answers (404, 405, 413, ...); 500 goes through Error().
    static Response ErrorWithStatus(int status, std::string_view message);

    Response& WithHeader(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
};

}  // namespace orch::server
