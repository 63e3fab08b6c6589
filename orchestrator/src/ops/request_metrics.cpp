#include "orchestrator/ops/request_metrics.hpp"

#include <array>

namespace orch::ops {

std::string MethodLabel(std::string_view method) {
    static constexpr std::array<std::string_view, 9> kKnown = {
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"};
    for (const auto known : kKnown) {
        if (method == known) {
            return std::string(known);
        }
    }
    return "other";
}

server::RequestObserver MakeRequestMetricsObserver(metrics::Registry& registry) {
    auto& requests = registry.AddCounter(
        "orch_http_requests_total", "HTTP requests answered, by route pattern", {"route", "method", "status"}
    );
    auto& latency = registry.AddHistogram(
        "orch_http_request_duration_seconds",
        "Time from the parsed request to the response, by route pattern",
        {"route", "method"},
        metrics::LatencyBuckets()
    );
    return [&requests, &latency](
               const server::Request& req,
               const server::Response& res,
               const std::string& route,
               std::chrono::microseconds elapsed
           ) {
        const std::string method = MethodLabel(req.method);
        requests.With({route, method, std::to_string(res.status)}).Inc();
        latency.With({route, method}).Observe(static_cast<double>(elapsed.count()) / 1e6);
    };
}

}  // namespace orch::ops
