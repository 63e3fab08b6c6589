#include "monitoring/prometheus_api.hpp"

#include "common/json.hpp"

#include <cmath>

namespace orch::monitoring {
namespace {

Result<double> ParseValue(const Json& pair) {
    if (!pair.is_array() || pair.size() != 2 || !pair[1].is_string()) {
        return Error::InvalidArgument("a Prometheus sample must be [time, \"value\"]");
    }
    const auto& text = pair[1].get_ref<const std::string&>();
    if (text == "NaN") {
        return std::nan("");
    }
    if (text == "+Inf" || text == "-Inf") {
        return text[0] == '+' ? HUGE_VAL : -HUGE_VAL;
    }
    try {
        std::size_t used = 0;
        const double value = std::stod(text, &used);
        if (used == text.size()) {
            return value;
        }
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): reported below
    }
    return Error::InvalidArgument("a Prometheus sample value is not a number: '" + text + "'");
}

Result<std::vector<Sample>> ParseVector(const Json& result) {
    std::vector<Sample> out;
    if (!result.is_array()) {
        return Error::InvalidArgument("Prometheus vector result must be a list");
    }
    for (const auto& item : result) {
        if (!item.is_object() || !item.contains("value")) {
            return Error::InvalidArgument("Prometheus vector element without 'value'");
        }
        auto value = ParseValue(item["value"]);
        if (!value) {
            return std::move(value).error();
        }
        if (std::isnan(*value)) {
            continue;
        }
        Sample sample;
        sample.value = *value;
        if (const auto metric = item.find("metric"); metric != item.end() && metric->is_object()) {
            for (const auto& [name, label] : metric->items()) {
                if (label.is_string()) {
                    sample.labels.emplace(name, label.get<std::string>());
                }
            }
        }
        out.push_back(std::move(sample));
    }
    return out;
}

}  // namespace

std::string Sample::Label(const std::string& name) const {
    const auto it = labels.find(name);
    return it == labels.end() ? std::string() : it->second;
}

Result<std::vector<Sample>> ParseQueryResponse(int http_status, const std::string& body) {
    auto parsed = ParseJson(body);
    if (!parsed || !parsed->is_object()) {
        return Error::InvalidArgument(
            "Prometheus answered HTTP " + std::to_string(http_status) + " without a JSON envelope"
        );
    }
    const Json& envelope = *parsed;
    if (envelope.value("status", "") != "success") {
        return Error::InvalidArgument(
            "Prometheus query failed (HTTP " + std::to_string(http_status) + ", " +
            envelope.value("errorType", "unknown") + "): " + envelope.value("error", "")
        );
    }
    const auto data = envelope.find("data");
    if (data == envelope.end() || !data->is_object()) {
        return Error::InvalidArgument("Prometheus answer has no 'data'");
    }
    const std::string type = data->value("resultType", "");
    const auto result = data->find("result");
    if (result == data->end()) {
        return Error::InvalidArgument("Prometheus answer has no 'data.result'");
    }
    if (type == "vector") {
        return ParseVector(*result);
    }
    if (type == "scalar") {
        auto value = ParseValue(*result);
        if (!value) {
            return std::move(value).error();
        }
        return std::vector<Sample>{Sample{{}, *value}};
    }
    return Error::InvalidArgument("Prometheus query must return an instant vector or a scalar, not '" + type + "'");
}

PrometheusClient::PrometheusClient(http::Client& http, std::string url, std::chrono::milliseconds timeout)
    : http_(http), url_(std::move(url)), timeout_(timeout) {
    while (!url_.empty() && url_.back() == '/') {
        url_.pop_back();
    }
}

Result<std::vector<Sample>> PrometheusClient::Query(const std::string& promql) {
    http::ClientRequest request;
    request.url = url_ + "/api/v1/query?query=" + http::UrlEncode(promql);
    request.timeout = timeout_;
    request.max_response_bytes = 16u << 20;
    request.headers.emplace_back("Accept", "application/json");
    auto response = http_.Send(request);
    if (!response) {
        return std::move(response).error();
    }
    return ParseQueryResponse(response->status, response->body);
}

}  // namespace orch::monitoring
