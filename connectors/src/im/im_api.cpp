#include "im/im_api.hpp"

namespace orch::connectors::im {

ImApi::ImApi(std::shared_ptr<http::Client> client, std::string endpoint, std::string authorization, CallOptions options)
    : client_(std::move(client)),
      endpoint_(std::move(endpoint)),
      authorization_(std::move(authorization)),
      options_(options) {
    while (!endpoint_.empty() && endpoint_.back() == '/') {
        endpoint_.pop_back();
    }
}

ConnectorResult<RestResponse> ImApi::Call(const std::string& method, const std::string& path, const std::string* yaml) {
    http::ClientRequest request;
    request.method = method;
    request.url = endpoint_ + path;
    request.timeout = options_.timeout;
    request.max_response_bytes = options_.max_response_bytes;
    request.headers = {{"Authorization", authorization_}, {"Accept", "application/json"}};
    if (yaml != nullptr) {
        request.headers.emplace_back("Content-Type", "text/yaml");
        request.body = *yaml;
    }
    auto response = client_->Send(request);
    if (!response) {
        return ClassifyTransportError(response.error(), "IM");
    }
    return RestResponse{response->status, std::move(response->body), std::move(response->headers)};
}

Failure ImApi::StatusFailure(const RestResponse& response, std::string_view what) const {
    Failure failure = ClassifyHttpStatus(response.status, ServerMessage(response.body), std::string(what) + " on IM");
    // IM answers 400 for everything a cloud refused (quota, image, flavor, credentials):
    // another site may well accept it, as the original's next-provider loop assumes.
    if (failure.kind == FailureKind::kUserError) {
        failure.kind = FailureKind::kTryAnotherSite;
    }
    return failure;
}

std::string InfrastructureIdFrom(const std::string& body) {
    std::string uri = body;
    if (auto parsed = ParseJson(body); parsed && parsed->is_object() && (*parsed)["uri"].is_string()) {
        uri = (*parsed)["uri"].get<std::string>();
    }
    while (!uri.empty() && (uri.back() == '\n' || uri.back() == '\r' || uri.back() == ' ' || uri.back() == '/')) {
        uri.pop_back();
    }
    const auto slash = uri.rfind('/');
    std::string id = slash == std::string::npos ? uri : uri.substr(slash + 1);
    for (const char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '_' || c == '.';
        if (!ok) {
            return {};
        }
    }
    return id.size() <= 128 ? id : std::string();
}

ConnectorResult<std::string> ImApi::Create(const std::string& tosca) {
    ORCH_CONNECTOR_TRY(RestResponse response, Call("POST", "/infrastructures?async=true", &tosca));
    if (!response.Ok()) {
        return StatusFailure(response, "creating the infrastructure");
    }
    std::string id = InfrastructureIdFrom(response.body);
    if (id.empty()) {
        return Failure{FailureKind::kRetryHere, "IM answered a create without a usable infrastructure URI"};
    }
    return id;
}

ConnectorResult<RestResponse> ImApi::Get(const std::string& path) {
    return Call("GET", path, nullptr);
}

ConnectorResult<RestResponse> ImApi::Send(const std::string& method, const std::string& path) {
    return Call(method, path, nullptr);
}

ConnectorResult<RestResponse> ImApi::SendYaml(
    const std::string& method, const std::string& path, const std::string& yaml
) {
    return Call(method, path, &yaml);
}

ConnectorResult<Json> ImApi::GetJson(const std::string& path, std::string_view what) {
    ORCH_CONNECTOR_TRY(RestResponse response, Get(path));
    if (!response.Ok()) {
        return StatusFailure(response, what);
    }
    auto parsed = ParseJson(response.body);
    if (!parsed) {
        return Failure{FailureKind::kRetryHere, std::string(what) + ": IM answered with malformed JSON"};
    }
    return std::move(*parsed);
}

}  // namespace orch::connectors::im
