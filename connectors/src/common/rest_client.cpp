#include "connectors/rest_client.hpp"

#include <utility>

namespace orch::connectors {
namespace {

constexpr std::size_t kMaxMessage = 400;

std::string Shorten(std::string text) {
    if (text.size() > kMaxMessage) {
        text = text.substr(0, kMaxMessage) + "...";
    }
    return text;
}

}  // namespace

Failure ClassifyTransportError(const Error& error, std::string_view site) {
    const std::string prefix = "cannot reach " + std::string(site) + ": ";
    switch (error.code) {
        case ErrorCode::kInvalidArgument:
            return {
                FailureKind::kTryAnotherSite, prefix + error.message + " (check the site's endpoint in the catalogue)"};
        case ErrorCode::kDeadlineExceeded:
        case ErrorCode::kUnavailable:
        case ErrorCode::kResourceExhausted:
        default:
            return {FailureKind::kRetryHere, prefix + error.message};
    }
}

Failure ClassifyHttpStatus(int status, std::string_view server_message, std::string_view what) {
    std::string message = std::string(what) + " failed with HTTP " + std::to_string(status);
    if (!server_message.empty()) {
        message += ": " + std::string(server_message);
    }
    if (status == 408 || status == 429 || status >= 500) {
        return {FailureKind::kRetryHere, message};
    }
    if (status == 401 || status == 403) {
        return {FailureKind::kTryAnotherSite, message + " (the site refuses these credentials)"};
    }
    return {FailureKind::kUserError, message};
}

std::string ServerMessage(std::string_view body) {
    auto parsed = ParseJson(body);
    if (parsed && parsed->is_object()) {
        if (const auto it = parsed->find("message"); it != parsed->end() && it->is_string()) {
            std::string message = it->get<std::string>();
            // Marathon puts the specifics of a 422 in details[{path, errors}].
            if (const auto details = parsed->find("details"); details != parsed->end() && details->is_array()) {
                for (const auto& d : *details) {
                    if (d.is_object() && d.contains("errors")) {
                        message += "; " + d.value("path", std::string()) + ": " + d["errors"].dump();
                    }
                }
            }
            return Shorten(message);
        }
    }
    return Shorten(std::string(body));
}

std::string Base64Encode(std::string_view data) {
    static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (const char c : data) {
        buffer = (buffer << 8U) | static_cast<unsigned char>(c);
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += kAlphabet[(buffer >> static_cast<unsigned>(bits)) & 0x3FU];
        }
    }
    if (bits > 0) {
        out += kAlphabet[(buffer << static_cast<unsigned>(6 - bits)) & 0x3FU];
    }
    while (out.size() % 4 != 0) {
        out += '=';
    }
    return out;
}

http::Headers AuthHeaders(const Credentials& credentials) {
    if (!credentials.bearer_token.empty()) {
        return {{"Authorization", "Bearer " + credentials.bearer_token}};
    }
    if (!credentials.username.empty()) {
        return {{"Authorization", "Basic " + Base64Encode(credentials.username + ":" + credentials.password)}};
    }
    return {};
}

RestClient::RestClient(
    std::shared_ptr<http::Client> client,
    std::string base_url,
    http::Headers auth,
    CallOptions options,
    std::string site
)
    : client_(std::move(client)),
      base_url_(std::move(base_url)),
      auth_(std::move(auth)),
      options_(options),
      site_(std::move(site)) {
    while (!base_url_.empty() && base_url_.back() == '/') {
        base_url_.pop_back();
    }
}

ConnectorResult<RestResponse> RestClient::Call(
    const std::string& method, const std::string& path, const Json* body, const std::string& content_type
) {
    http::ClientRequest request;
    request.method = method;
    request.url = base_url_ + path;
    request.timeout = options_.timeout;
    request.max_response_bytes = options_.max_response_bytes;
    request.headers = auth_;
    request.headers.emplace_back("Accept", "application/json");
    if (body != nullptr) {
        request.headers.emplace_back("Content-Type", content_type);
        request.body = body->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    auto response = client_->Send(request);
    if (!response) {
        return ClassifyTransportError(response.error(), site_);
    }
    return RestResponse{response->status, std::move(response->body), std::move(response->headers)};
}

ConnectorResult<Json> RestClient::ParseBody(const RestResponse& response, std::string_view what) const {
    auto parsed = ParseJson(response.body);
    if (!parsed) {
        return Failure{
            FailureKind::kRetryHere,
            std::string(what) + ": " + site_ + " answered with malformed JSON (" +
                parsed.error().message.substr(0, 120) + ")"};
    }
    return std::move(*parsed);
}

Failure RestClient::StatusFailure(const RestResponse& response, std::string_view what) const {
    return ClassifyHttpStatus(response.status, ServerMessage(response.body), std::string(what) + " on " + site_);
}

std::string BoundedVersion(std::string_view reported) {
    constexpr std::size_t kMaxVersionBytes = 64;
    std::string out;
    for (const char c : reported.substr(0, kMaxVersionBytes)) {
        out += c >= 0x20 && c < 0x7F ? c : '?';
    }
    return out.empty() ? std::string(kUnknownSiteVersion) : out;
}

}  // namespace orch::connectors
