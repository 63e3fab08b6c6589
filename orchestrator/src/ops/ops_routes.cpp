#include "orchestrator/ops/ops_routes.hpp"

namespace orch::ops {

namespace {
constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
}  // namespace

void RegisterOpsRoutes(server::Router& router, metrics::Registry& registry) {
    router.Add("GET", "/metrics", [&registry](const server::Request&) {
        server::Response res;
        res.status = 200;
        res.content_type = std::string(kPrometheusContentType);
        res.body = registry.Render();
        return res;
    }, {.name = "metrics"});
}

}  // namespace orch::ops
