#pragma once

#include <common/json.hpp>

#include <test_support/fixture_http_server.hpp>
#include <test_support/test_env.hpp>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace orch::test {

/// One recorded request/response pair, stored as a JSON file:
/// {"request": {"method", "path", "query": {name: value}, "authorization": bool}, "response": {"status", "body"}}.
/// The query is kept decoded and sorted, and only whether a token was sent (never the token).
struct RecordedExchange {
    std::string method, path;
    std::map<std::string, std::string> query;
    bool authorization = false;
    int status = 200;
    std::string body;
};

inline std::map<std::string, std::string> DecodeQuery(const std::string& raw) {
    std::map<std::string, std::string> out;
    std::size_t start = 0;
    while (start < raw.size()) {
        const auto end = std::min(raw.find('&', start), raw.size());
        const std::string pair = raw.substr(start, end - start);
        const auto eq = pair.find('=');
        out[http::UrlDecode(pair.substr(0, eq), true)] =
            eq == std::string::npos ? "" : http::UrlDecode(pair.substr(eq + 1), true);
        start = end + 1;
    }
    return out;
}

/// Every *.json exchange of `directory`.
inline std::vector<RecordedExchange> LoadRecordedExchanges(const std::string& directory) {
    std::vector<RecordedExchange> out;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        auto doc = ParseJson(ReadFile(entry.path().string()));
        if (!doc) {
            throw std::runtime_error("broken fixture " + entry.path().string() + ": " + doc.error().message);
        }
        const Json& request = doc->at("request");
        RecordedExchange exchange;
        exchange.method = request.at("method").get<std::string>();
        exchange.path = request.at("path").get<std::string>();
        for (const auto& [name, value] : request.at("query").items()) {
            exchange.query[name] = value.get<std::string>();
        }
        exchange.authorization = request.at("authorization").get<bool>();
        exchange.status = doc->at("response").at("status").get<int>();
        exchange.body = doc->at("response").at("body").dump();
        out.push_back(std::move(exchange));
    }
    return out;
}

/// Serves the exchanges of `directory` on `routes`: a request gets the recorded response whose
/// method, path, query parameters (in any order) and token presence are the same; anything else
/// a 404 that says what was asked (so a test shows the request its client really made).
inline void ServeRecordedExchanges(FixtureRoutes& routes, const std::string& directory) {
    std::map<std::pair<std::string, std::string>, std::vector<RecordedExchange>> by_route;
    for (auto& exchange : LoadRecordedExchanges(directory)) {
        by_route[{exchange.method, exchange.path}].push_back(std::move(exchange));
    }
    for (auto& [route, exchanges] : by_route) {
        routes.Route(route.first, route.second, [exchanges](const FixtureRequest& request) {
            const auto query = DecodeQuery(request.query);
            const bool token = !request.Header("authorization").empty();
            for (const auto& exchange : exchanges) {
                if (exchange.query == query && exchange.authorization == token) {
                    return FixtureResponse{exchange.status, "application/json", exchange.body};
                }
            }
            return FixtureResponse{
                404, "application/json", R"({"detail":"no recorded exchange for ?)" + request.query + "\"}"};
        });
    }
}

}  // namespace orch::test
