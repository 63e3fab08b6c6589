#include "orchestrator/server/router.hpp"

#include <algorithm>

namespace orch::server {
namespace {

std::vector<std::string_view> SplitPath(std::string_view path) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start < path.size()) {
        while (start < path.size() && path[start] == '/') {
            ++start;
        }
        const auto end = path.find('/', start);
        const auto part = path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!part.empty()) {
            parts.push_back(part);
        }
        if (end == std::string_view::npos) {
            break;
        }
        start = end;
    }
    return parts;
}

bool IsParam(const std::string& segment) {
    return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

bool MatchSegments(
    const Router::Route& route, const std::vector<std::string_view>& parts, std::map<std::string, std::string>& params
) {
    if (route.segments.size() != parts.size()) {
        return false;
    }
    std::map<std::string, std::string> found;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& seg = route.segments[i];
        if (IsParam(seg)) {
            found[seg.substr(1, seg.size() - 2)] = std::string(parts[i]);
        } else if (seg != parts[i]) {
            return false;
        }
    }
    params = std::move(found);
    return true;
}

}  // namespace

void Router::Add(std::string method, const std::string& pattern, Handler handler, RouteOptions options) {
    Route route;
    route.method = std::move(method);
    for (auto part : SplitPath(pattern)) {
        route.segments.emplace_back(part);
    }
    route.pattern = pattern;
    route.handler = std::move(handler);
    if (options.name.empty()) {
        options.name = route.method + " " + pattern;
    }
    route.options = std::move(options);
    routes_.push_back(std::move(route));
}

void Router::AddDropping(
    std::string method, const std::string& pattern, DroppingHandler handler, RouteOptions options
) {
    Add(std::move(method), pattern, Handler(), std::move(options));
    routes_.back().dropping_handler = std::move(handler);
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
    // Empty segments are dropped, so "/deployments/" and "/deployments" match the same route,
    // as the original's trailing-slash matching did.
    const auto parts = SplitPath(path);
    Match match;
    for (const auto& route : routes_) {
        std::map<std::string, std::string> params;
        if (!MatchSegments(route, parts, params)) {
            continue;
        }
        if (route.method == method) {
            match.route = &route;
            match.params = std::move(params);
            match.allowed_methods.clear();
            return match;
        }
        if (std::find(match.allowed_methods.begin(), match.allowed_methods.end(), route.method) ==
            match.allowed_methods.end()) {
            match.allowed_methods.push_back(route.method);
        }
    }
    return match;
}

}  // namespace orch::server
