#include "orchestrator/ops/ops_routes.hpp"

#include "orchestrator/ops/openapi.hpp"

namespace orch::ops {

namespace {
constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
}  // namespace

void RegisterOpsRoutes(server::Router& router, metrics::Registry& registry) {
    router.Add(
        "GET",
        "/metrics",
        [&registry](const server::Request&) {
            server::Response res;
            res.status = 200;
            res.content_type = std::string(kPrometheusContentType);
            res.body = registry.Render();
            return res;
        },
        {.name = "metrics"}
    );
    // Converted once at startup; the route only copies the text (inline: no blocking work).
    const auto& document = OpenApiDocument();
    const std::string body = document ? document->dump() : std::string();
    const std::string failure = document ? std::string() : document.error().message;
    router.Add(
        "GET",
        "/openapi.json",
        [body, failure](const server::Request&) {
            if (body.empty()) {
                return server::Response::ErrorWithStatus(500, "The API description is not available: " + failure);
            }
            server::Response res;
            res.status = 200;
            res.content_type = std::string(server::kJsonContentType);
            res.body = body;
            return res;
        },
        {.inline_on_io_thread = true, .name = "openapi"}
    );
}

}  // namespace orch::ops
