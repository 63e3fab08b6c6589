#pragma once

#include "orchestrator/server/request.hpp"
#include "orchestrator/server/response.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace orch::server {

using Handler = std::function<Response(const Request&)>;
/// A handler that may answer nothing: nullopt closes the connection without a response. Only for
/// test doubles (site-sim injects connection resets); the service's routes always answer.
using DroppingHandler = std::function<std::optional<Response>(const Request&)>;

struct RouteOptions {
    /// Run on the I/O thread. Only for handlers that never block (no database, no network).
    bool inline_on_io_thread = false;
    /// A short stable name for metrics and logs ("deployments.get"); defaults to the pattern.
    std::string name;
};

/// Maps (method, path pattern) to handlers. Patterns are literal segments and "{name}"
/// parameters: "/deployments/{id}/resources/{rid}". A trailing slash on the request is ignored.
class Router {
   public:
    struct Route {
        std::string method;
        std::vector<std::string> segments;
        std::string pattern;
        Handler handler;
        DroppingHandler dropping_handler;  ///< set instead of `handler` by AddDropping
        RouteOptions options;
    };

    struct Match {
        const Route* route = nullptr;  ///< null when no route matched
        std::map<std::string, std::string> params;
        std::vector<std::string> allowed_methods;  ///< set when the path exists with other methods
    };

    void Add(std::string method, const std::string& pattern, Handler handler, RouteOptions options = {});
    void AddDropping(
        std::string method, const std::string& pattern, DroppingHandler handler, RouteOptions options = {}
    );
    Match Find(std::string_view method, std::string_view path) const;
    const std::vector<Route>& routes() const { return routes_; }

   private:
    std::vector<Route> routes_;
};

}  // namespace orch::server
