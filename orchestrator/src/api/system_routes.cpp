#include "orchestrator/api/system_routes.hpp"

#include "common/build_info.hpp"

#include <unistd.h>

namespace orch::api {
namespace {

std::string HostName() {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return host;
}

// Both shapes the clients have known: the Spring Boot actuator keys (v1.5+) and the four legacy
// keys orchent's OrchentInfo still declares.
Json InfoBody() {
    const auto info = GetBuildInfo();
    return Json{
        {"build",
         {{"version", info.version},
          {"artifact", "orchestrator"},
          {"name", "orchestrator"},
          {"group", "indigo-dc"},
          {"time", info.build_time}}},
        {"git", {{"branch", "main"}, {"commit", {{"id", info.git_commit}, {"time", info.build_time}}}}},
        {"projectVersion", info.version},
        {"projectRevision", info.git_commit},
        {"projectTimestamp", info.build_time},
        {"serverHostname", HostName()},
    };
}

}  // namespace

void RegisterSystemRoutes(server::Router& router, store::DatabaseSupervisor& database) {
    router.Add(
        "GET",
        "/",
        [](const server::Request&) { return server::Response::Text(200, "INDIGO-Orchestrator"); },
        {.inline_on_io_thread = true, .name = "root"}
    );
    router.Add(
        "GET",
        "/info",
        [body = InfoBody()](const server::Request&) { return server::Response::Json(200, body); },
        {.inline_on_io_thread = true, .name = "info"}
    );
    router.Add(
        "GET",
        "/healthz",
        [](const server::Request&) {
            return server::Response::Json(200, Json{{"status", "UP"}});
        },
        {.inline_on_io_thread = true, .name = "healthz"}
    );
    // Readiness touches the database, so it runs on the worker pool like any blocking handler.
    router.Add(
        "GET",
        "/readyz",
        [&database](const server::Request&) {
            auto status = database.CheckReady();
            if (!status) {
                return server::Response::Error(status.error());
            }
            return server::Response::Json(200, Json{{"status", "UP"}, {"database", "UP"}});
        },
        {.name = "readyz"}
    );
}

}  // namespace orch::api
