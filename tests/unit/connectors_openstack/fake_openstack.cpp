#include "fake_openstack.hpp"

#include <algorithm>

namespace orch::test {

std::string PathOf(const std::string& url) {
    const auto scheme = url.find("://");
    const auto slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    return slash == std::string::npos ? "/" : url.substr(slash);
}

void FakeClient::Route(const std::string& method, const std::string& path_prefix, Handler handler) {
    std::lock_guard lock(mutex_);
    routes_.push_back({method, path_prefix, std::move(handler)});
}

Result<http::ClientResponse> FakeClient::Send(const http::ClientRequest& request) {
    Handler handler;
    {
        std::lock_guard lock(mutex_);
        requests.push_back(request);
        const std::string path = PathOf(request.url);
        for (auto it = routes_.rbegin(); it != routes_.rend(); ++it) {
            if (it->method == request.method && path.rfind(it->prefix, 0) == 0) {
                handler = it->handler;
                break;
            }
        }
    }
    if (!handler) {
        return JsonResponse(
            404, {{"itemNotFound", {{"message", "no fake route for " + request.method + " " + request.url}}}}
        );
    }
    return handler(request);
}

std::vector<http::ClientRequest> FakeClient::Requests(const std::string& method, const std::string& path_prefix) const {
    std::lock_guard lock(mutex_);
    std::vector<http::ClientRequest> out;
    std::copy_if(requests.begin(), requests.end(), std::back_inserter(out), [&](const http::ClientRequest& r) {
        return r.method == method && PathOf(r.url).rfind(path_prefix, 0) == 0;
    });
    return out;
}

http::ClientResponse JsonResponse(int status, const Json& body, http::Headers headers) {
    http::ClientResponse response;
    response.status = status;
    response.headers = std::move(headers);
    response.headers.emplace_back("Content-Type", "application/json");
    response.body = body.is_null() ? std::string() : body.dump();
    return response;
}

void AddKeystone(FakeClient& client, const std::string& expires_at) {
    auto issued = std::make_shared<int>(0);
    client.Route("POST", "/v3/auth/tokens", [issued, expires_at](const http::ClientRequest&) {
        const Json catalog = Json::array({
            {{"type", "compute"},
             {"endpoints",
              {{{"interface", "internal"}, {"region_id", "RegionOne"}, {"url", "http://nova-internal.test/v2.1"}},
               {{"interface", "public"}, {"region_id", "RegionTwo"}, {"url", "http://nova-two.test/v2.1"}},
               {{"interface", "public"}, {"region_id", "RegionOne"}, {"url", "http://nova.test:8774/v2.1/"}}}}},
            {{"type", "image"},
             {"endpoints",
              {{{"interface", "public"}, {"region_id", "RegionOne"}, {"url", "http://glance.test:9292"}}}}},
            {{"type", "network"},
             {"endpoints",
              {{{"interface", "public"}, {"region_id", "RegionOne"}, {"url", "http://neutron.test:9696"}}}}},
        });
        const std::string token = "token-" + std::to_string(++*issued);
        return JsonResponse(
            201,
            {{"token",
              {{"expires_at", expires_at},
               {"project", {{"id", "0123456789abcdef0123456789abcdef"}}},
               {"catalog", catalog}}}},
            {{"X-Subject-Token", token}}
        );
    });
}

connectors::SiteTarget PasswordSite() {
    connectors::SiteTarget target;
    target.site_id = "site-a";
    target.kind = connectors::TargetKind::kOpenStack;
    target.endpoint = "http://keystone.test:5000/v3/";
    target.region = "RegionOne";
    target.project = "gpu-project";
    target.credentials.username = "alice";
    target.credentials.password = "s3cret";
    target.options = {{"network", "none"}};
    return target;
}

}  // namespace orch::test
