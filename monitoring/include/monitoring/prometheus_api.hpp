#pragma once

#include "common/http_client.hpp"
#include "common/result.hpp"

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace orch::monitoring {

/// One instant-vector element (or the scalar): its labels and its value. NaN values are dropped.
struct Sample {
    std::map<std::string, std::string> labels;
    double value = 0;

    std::string Label(const std::string& name) const;
};

/// Parses a Prometheus `/api/v1/query` answer: the {"status", "data": {"resultType", "result"}}
/// envelope. An error envelope (400 bad_data, 422, 503) becomes kInvalidArgument naming errorType
/// and error; transport failures of Query keep the HTTP client's codes (kUnavailable, kDeadlineExceeded).
Result<std::vector<Sample>> ParseQueryResponse(int http_status, const std::string& body);

/// GET {url}/api/v1/query?query=<promql>, bounded by `timeout`.
class PrometheusClient {
   public:
    PrometheusClient(http::Client& http, std::string url, std::chrono::milliseconds timeout);
    Result<std::vector<Sample>> Query(const std::string& promql);
    const std::string& url() const { return url_; }

   private:
    http::Client& http_;
    std::string url_;
    std::chrono::milliseconds timeout_;
};

}  // namespace orch::monitoring
