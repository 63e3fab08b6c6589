#pragma once

#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"
#include "connectors/connector.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace orch::connectors {

/// Bounds of every call a connector makes.
struct CallOptions {
    std::chrono::milliseconds timeout{15'000};
    std::size_t max_response_bytes = 8u << 20;
};

/// One answered HTTP exchange (any status).
struct RestResponse {
    int status = 0;
    std::string body;
    http::Headers headers;

    bool Ok() const { return status >= 200 && status < 300; }
};

/// How a transport error (no HTTP answer) should be handled: timeouts, refused or reset
/// connections and oversize answers are worth retrying here; an unusable URL means the
/// catalogue entry is wrong, so another site should be tried.
Failure ClassifyTransportError(const Error& error, std::string_view site);

/// How an HTTP error status should be handled, with the server's own words in the message:
/// 408/429/5xx retry here; 401/403 try another site (the site refuses these credentials);
/// other 4xx are the request's fault (user error).
Failure ClassifyHttpStatus(int status, std::string_view server_message, std::string_view what);

/// The human part of an error body: "message" of a JSON body (Marathon, Kubernetes Status),
/// else the text itself (Chronos), shortened to a few hundred characters.
std::string ServerMessage(std::string_view body);

/// "Bearer <token>" when there is a token, else Basic for username/password, else nothing.
http::Headers AuthHeaders(const Credentials& credentials);

std::string Base64Encode(std::string_view data);

/// JSON-over-HTTP calls to one site's API with the connector's bounds. Only transport failures
/// become Failures here; callers decide what each status means for them.
class RestClient {
   public:
    RestClient(
        std::shared_ptr<http::Client> client,
        std::string base_url,
        http::Headers auth,
        CallOptions options,
        std::string site
    );

    /// `path` is appended to the base URL (it carries its own query). `body` is sent as JSON
    /// when not null; `content_type` overrides application/json (e.g. merge-patch).
    ConnectorResult<RestResponse> Call(
        const std::string& method,
        const std::string& path,
        const Json* body = nullptr,
        const std::string& content_type = "application/json"
    );

    /// The JSON of a 2xx answer; a body that does not parse is a transient failure (a proxy or
    /// a half-written answer), retried here.
    ConnectorResult<Json> ParseBody(const RestResponse& response, std::string_view what) const;
    /// The classified failure for a non-2xx answer.
    Failure StatusFailure(const RestResponse& response, std::string_view what) const;

    const std::string& site() const { return site_; }

   private:
    std::shared_ptr<http::Client> client_;
    std::string base_url_;
    http::Headers auth_;
    CallOptions options_;
    std::string site_;
};

/// Runs `body` (a connector operation reading a site's JSON) and turns a JSON type error — an
/// answer shaped differently than the API promises — into a failure instead of an exception.
template <typename F>
auto GuardJson(std::string_view site, F&& body) -> decltype(body()) {
    try {
        return body();
    } catch (const Json::exception& e) {
        return Failure{
            FailureKind::kRetryHere, std::string(site) + " answered with an unexpected document: " + e.what()};
    }
}

#define ORCH_CONNECTOR_CONCAT_INNER(a, b) a##b
#define ORCH_CONNECTOR_CONCAT(a, b) ORCH_CONNECTOR_CONCAT_INNER(a, b)

/// A version a site reported, as diagnostics show it: printable ASCII only (anything else is
/// '?'), at most 64 bytes, kUnknownSiteVersion when empty. The site's text reaches a user.
std::string BoundedVersion(std::string_view reported);

/// Unwraps a ConnectorResult into `lhs`, or returns its Failure from the enclosing function.
#define ORCH_CONNECTOR_TRY(lhs, expr)                                                                           \
    auto ORCH_CONNECTOR_CONCAT(orch_connector_result_, __LINE__) = (expr);                                      \
    if (auto* orch_failure_ =                                                                                   \
            std::get_if<::orch::connectors::Failure>(&ORCH_CONNECTOR_CONCAT(orch_connector_result_, __LINE__)); \
        orch_failure_ != nullptr) {                                                                             \
        return *orch_failure_;                                                                                  \
    } /* NOLINTNEXTLINE(bugprone-macro-parentheses): lhs may declare */                                         \
    lhs = std::move(std::get<0>(ORCH_CONNECTOR_CONCAT(orch_connector_result_, __LINE__)))

}  // namespace orch::connectors
