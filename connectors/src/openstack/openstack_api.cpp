#include "openstack/openstack_api.hpp"

#include "common/uuid.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/workload.hpp"
#include "openstack/openstack_errors.hpp"

#include <cctype>

namespace orch::connectors::openstack {
namespace {

constexpr std::size_t kMaxResponseBytes = 16u << 20;

ConnectorResult<Json> JsonBody(const http::ClientResponse& response, const std::string& what) {
    auto parsed = ParseJson(response.body);
    if (!parsed || !parsed->is_object()) {
        return Failure{FailureKind::kRetryHere, what + ": the answer is not a JSON object"};
    }
    return std::move(*parsed);
}

}  // namespace

OpenStackApi::OpenStackApi(
    std::shared_ptr<http::Client> client,
    KeystoneAuth& keystone,
    const SiteTarget& target,
    std::chrono::milliseconds timeout,
    std::string microversion
)
    : client_(std::move(client)),
      keystone_(keystone),
      target_(target),
      timeout_(timeout),
      microversion_(std::move(microversion)) {}

ConnectorResult<http::ClientResponse> OpenStackApi::Call(
    const std::string& service_type, const std::string& method, const std::string& path, const Json* body
) {
    for (int attempt = 0;; ++attempt) {
        auto token = keystone_.Token(target_);
        if (auto* failure = std::get_if<Failure>(&token)) {
            return *failure;
        }
        auto response = Send(service_type, method, path, body, std::get<ScopedToken>(token));
        auto* answered = std::get_if<http::ClientResponse>(&response);
        // A cached token can be revoked before it expires: renew it once, never more.
        if (answered == nullptr || answered->status != 401 || attempt > 0) {
            return response;
        }
        keystone_.Invalidate(target_);
    }
}

ConnectorResult<http::ClientResponse> OpenStackApi::Send(
    const std::string& service_type,
    const std::string& method,
    const std::string& path,
    const Json* body,
    const ScopedToken& token
) {
    auto base =
        KeystoneAuth::Endpoint(token, service_type, target_.region, OptionString(target_, "interface", "public"));
    if (auto* failure = std::get_if<Failure>(&base)) {
        return *failure;
    }
    http::ClientRequest request;
    request.method = method;
    request.url = std::get<std::string>(base) + path;
    request.timeout = timeout_;
    request.max_response_bytes = kMaxResponseBytes;
    request.headers = {{"X-Auth-Token", token.token}, {"Accept", "application/json"}};
    if (service_type == "compute") {
        request.headers.emplace_back("OpenStack-API-Version", "compute " + microversion_);
    }
    if (body != nullptr) {
        request.headers.emplace_back("Content-Type", "application/json");
        request.body = body->dump();
    }
    auto response = client_->Send(request);
    if (!response) {
        return ClassifyTransportError(response.error(), service_type + " API of site " + target_.site_id);
    }
    return std::move(*response);
}

ConnectorResult<std::string> OpenStackApi::CreateServer(const Json& body) {
    const std::string name = body["server"].value("name", "");
    const std::string what = "Nova server create of " + name;
    auto response = Call("compute", "POST", "/servers", &body);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    if (r.status != 202) {
        return ResponseFailure(r, what);
    }
    auto parsed = JsonBody(r, what);
    if (auto* failure = std::get_if<Failure>(&parsed)) {
        return *failure;
    }
    const Json& created = std::get<Json>(parsed);
    if (!created.contains("server") || !created["server"].contains("id") || !created["server"]["id"].is_string()) {
        return Failure{FailureKind::kRetryHere, what + ": the answer carries no server id"};
    }
    return created["server"]["id"].get<std::string>();
}

ConnectorResult<std::vector<Json>> OpenStackApi::ListServers(const std::string& prefix) {
    // Nova matches `name` as a regular expression; deployment names hold no special characters
    // but the node part might, so the prefix is matched literally by escaping everything else.
    std::string pattern = "^";
    for (const char c : prefix) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_') {
            pattern += '\\';
        }
        pattern += c;
    }
    const std::string what = "Nova server list";
    auto response = Call("compute", "GET", "/servers/detail?limit=1000&name=" + http::UrlEncode(pattern), nullptr);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    if (r.status != 200) {
        return ResponseFailure(r, what);
    }
    auto parsed = JsonBody(r, what);
    if (auto* failure = std::get_if<Failure>(&parsed)) {
        return *failure;
    }
    std::vector<Json> out;
    for (const auto& server : std::get<Json>(parsed).value("servers", Json::array())) {
        // The regular expression is the server's business; the prefix check here is ours.
        if (server.is_object() && server.value("name", "").rfind(prefix, 0) == 0) {
            out.push_back(server);
        }
    }
    return out;
}

ConnectorResult<std::optional<Json>> OpenStackApi::GetServer(const std::string& id) {
    const std::string what = "Nova server show of " + id;
    auto response = Call("compute", "GET", "/servers/" + http::UrlEncode(id), nullptr);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    if (r.status == 404) {
        return std::optional<Json>();
    }
    if (r.status != 200) {
        return ResponseFailure(r, what);
    }
    auto parsed = JsonBody(r, what);
    if (auto* failure = std::get_if<Failure>(&parsed)) {
        return *failure;
    }
    const Json& body = std::get<Json>(parsed);
    if (!body.contains("server") || !body["server"].is_object()) {
        return Failure{FailureKind::kRetryHere, what + ": the answer carries no server"};
    }
    return std::optional<Json>(body["server"]);
}

ConnectorResult<bool> OpenStackApi::DeleteServer(const std::string& id) {
    auto response = Call("compute", "DELETE", "/servers/" + http::UrlEncode(id), nullptr);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    if (r.status == 404) {
        return false;
    }
    if (r.status != 204) {
        return ResponseFailure(r, "Nova server delete of " + id);
    }
    return true;
}

ConnectorResult<bool> OpenStackApi::ServerAction(const std::string& id, const Json& action, const std::string& what) {
    auto response = Call("compute", "POST", "/servers/" + http::UrlEncode(id) + "/action", &action);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    if (r.status == 202) {
        return true;
    }
    auto failure = ResponseFailure(r, what + " of server " + id);
    // Nova answers 409 when the server's state forbids the action (stop a stopped server) and 404
    // for a server that is not there: asking again would not help.
    if (r.status == 409 || r.status == 404) {
        failure.kind = FailureKind::kUserError;
    }
    return failure;
}

ConnectorResult<std::string> OpenStackApi::FlavorId(const NodePlacement& placement) {
    if (!placement.flavor_id.empty()) {
        return placement.flavor_id;
    }
    if (placement.flavor_name.empty()) {
        return Failure{FailureKind::kUserError, "no flavor was chosen for the node"};
    }
    auto response = Call("compute", "GET", "/flavors?limit=1000", nullptr);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    auto parsed = r.status == 200 ? JsonBody(r, "Nova flavor list") : ResponseFailure(r, "Nova flavor list");
    if (auto* failure = std::get_if<Failure>(&parsed)) {
        return *failure;
    }
    for (const auto& flavor : std::get<Json>(parsed).value("flavors", Json::array())) {
        if (flavor.is_object() && flavor.value("name", "") == placement.flavor_name) {
            return flavor.value("id", "");
        }
    }
    return Failure{FailureKind::kTryAnotherSite, "the site has no flavor named " + placement.flavor_name};
}

ConnectorResult<std::string> OpenStackApi::ImageId(const NodePlacement& placement) {
    if (!placement.image_id.empty()) {
        return placement.image_id;
    }
    if (placement.image_name.empty()) {
        return Failure{FailureKind::kUserError, "no image was chosen for the node"};
    }
    auto token = keystone_.Token(target_);
    if (auto* failure = std::get_if<Failure>(&token)) {
        return *failure;
    }
    auto base = KeystoneAuth::Endpoint(
        std::get<ScopedToken>(token), "image", target_.region, OptionString(target_, "interface", "public")
    );
    if (auto* failure = std::get_if<Failure>(&base)) {
        return *failure;
    }
    // Catalog URLs of Glance may or may not carry the API version.
    const std::string path = std::get<std::string>(base).ends_with("/v2") ? "" : "/v2";
    auto response =
        Call("image", "GET", path + "/images?status=active&name=" + http::UrlEncode(placement.image_name), nullptr);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    auto parsed = r.status == 200 ? JsonBody(r, "Glance image list") : ResponseFailure(r, "Glance image list");
    if (auto* failure = std::get_if<Failure>(&parsed)) {
        return *failure;
    }
    const Json images = std::get<Json>(parsed).value("images", Json::array());
    if (images.empty() || !images[0].is_object()) {
        return Failure{FailureKind::kTryAnotherSite, "the site has no active image named " + placement.image_name};
    }
    return images[0].value("id", "");
}

ConnectorResult<std::string> OpenStackApi::NetworkId(const std::string& name_or_id) {
    if (LooksLikeUuid(name_or_id)) {
        return name_or_id;
    }
    auto token = keystone_.Token(target_);
    if (auto* failure = std::get_if<Failure>(&token)) {
        return *failure;
    }
    auto base = KeystoneAuth::Endpoint(
        std::get<ScopedToken>(token), "network", target_.region, OptionString(target_, "interface", "public")
    );
    if (auto* failure = std::get_if<Failure>(&base)) {
        return *failure;
    }
    const std::string path = std::get<std::string>(base).ends_with("/v2.0") ? "" : "/v2.0";  // as for Glance
    auto response = Call("network", "GET", path + "/networks?name=" + http::UrlEncode(name_or_id), nullptr);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    const auto& r = std::get<http::ClientResponse>(response);
    auto parsed = r.status == 200 ? JsonBody(r, "Neutron network list") : ResponseFailure(r, "Neutron network list");
    if (auto* failure = std::get_if<Failure>(&parsed)) {
        return *failure;
    }
    const Json networks = std::get<Json>(parsed).value("networks", Json::array());
    if (networks.size() != 1 || !networks[0].is_object()) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "the site has " + std::to_string(networks.size()) + " networks named " + name_or_id + " (expected one)",
        };
    }
    return networks[0].value("id", "");
}

ConnectorResult<Json> OpenStackApi::Networks() {
    const auto list = target_.options.find("networks");
    std::vector<std::string> wanted;
    if (list != target_.options.end() && list->is_array()) {
        for (const auto& entry : *list) {
            if (entry.is_string()) {
                wanted.push_back(entry.get<std::string>());
            }
        }
    } else {
        const std::string single = OptionString(target_, "network", "auto");
        if (single == "none" || single == "auto") {
            return Json(single);
        }
        wanted.push_back(single);
    }
    Json networks = Json::array();
    for (const auto& name : wanted) {
        auto id = NetworkId(name);
        if (auto* failure = std::get_if<Failure>(&id)) {
            return *failure;
        }
        networks.push_back({{"uuid", std::get<std::string>(id)}});
    }
    return networks;
}

}  // namespace orch::connectors::openstack
