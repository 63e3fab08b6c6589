#include "test_support/handler_harness.hpp"

#include <orchestrator/api/deployment_routes.hpp>
#include <orchestrator/api/placement_routes.hpp>
#include <orchestrator/api/types_routes.hpp>

namespace orch::test {

HandlerHarness::HandlerHarness() {
    authenticator.principal = User("https://iam.example/", "alice");
    api::RegisterDeploymentRoutes(router, ctx);
    api::RegisterResourceRoutes(router, ctx);
    api::RegisterPlacementRoutes(router, ctx);
    api::RegisterTypesRoutes(router);
}

auth::Principal HandlerHarness::User(const std::string& issuer, const std::string& subject) {
    auth::Principal p;
    p.issuer = issuer;
    p.subject = subject;
    p.scopes = {"openid", "profile", "offline_access"};  // offline_access: writes and actions
    p.groups = std::vector<std::string>{"users"};        // creating asks for a group claim
    return p;
}

server::Response HandlerHarness::Call(
    const std::string& method, const std::string& target, const std::string& body, http::Headers headers
) {
    server::Request request;
    request.method = method;
    request.target = target;
    const auto q = target.find('?');
    request.path = target.substr(0, q);
    if (q != std::string::npos) {
        request.query = server::ParseQuery(std::string_view(target).substr(q + 1));
    }
    headers.emplace_back("Authorization", "Bearer test-token");
    request.headers = std::move(headers);
    request.body = body;
    request.request_id = "req-test";
    request.remote_address = "127.0.0.1";
    auto match = router.Find(request.method, request.path);
    if (match.route == nullptr) {
        // As the HTTP server answers unmatched requests (orchestrator/src/server/http_server.cpp).
        if (match.allowed_methods.empty()) {
            return server::Response::ErrorWithStatus(404, "No handler found for " + method + " " + request.path);
        }
        std::string allow;
        for (const auto& m : match.allowed_methods) {
            allow += (allow.empty() ? "" : ", ") + m;
        }
        auto res = server::Response::ErrorWithStatus(405, "Request method '" + method + "' not supported");
        res.WithHeader("Allow", allow);
        return res;
    }
    request.path_params = std::move(match.params);
    return match.route->handler(request);
}

}  // namespace orch::test
