// Composition root: the only place where concrete types meet. Parse configuration, build the
// pool, supervisor, routes and server, run until SIGINT/SIGTERM, then drain and exit 0.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "common/config.hpp"
#include "common/log.hpp"
#include "orchestrator/api/system_routes.hpp"
#include "orchestrator/app/app_config.hpp"
#include "orchestrator/app/build_info.hpp"
#include "orchestrator/server/http_server.hpp"
#include "orchestrator/store/database_supervisor.hpp"
#include "orchestrator/store/pg_pool.hpp"

namespace {

struct Args {
    std::string config_path;
    bool check_only = false;
};

int Usage() {
    std::fprintf(stderr, "usage: orchestrator [--config FILE] [--check-config] [--version]\n");
    return 2;
}

// Signals are blocked in every thread and taken synchronously by one waiter, so shutdown runs
// as ordinary code instead of inside an async-signal handler.
sigset_t BlockShutdownSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    return set;
}

}  // namespace

int main(int argc, char** argv) {
    const sigset_t signals = BlockShutdownSignals();
    ::signal(SIGPIPE, SIG_IGN);
    const auto env = orch::ProcessEnvironment();
    Args args;
    if (const auto it = env.find("ORCHESTRATOR_CONFIG"); it != env.end()) {
        args.config_path = it->second;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--config" && i + 1 < argc) {
            args.config_path = argv[++i];
        } else if (arg == "--check-config") {
            args.check_only = true;
        } else if (arg == "--version") {
            std::printf("orchestrator %s (%s)\n", orch::app::GetBuildInfo().version.data(),
                        orch::app::GetBuildInfo().git_commit.data());
            return 0;
        } else {
            return Usage();
        }
    }

    auto config = orch::app::LoadConfig(args.config_path, env);
    if (!config) {
        std::fprintf(stderr, "orchestrator: configuration error: %s\n", config.error().message.c_str());
        return 2;
    }
    if (args.check_only) {
        std::printf("configuration OK\n");
        return 0;
    }
    orch::log::SetLevel(config->log_level);

    orch::store::PgPool pool(config->database);
    orch::store::DatabaseSupervisor database(pool);
    database.Start();

    orch::server::Router router;
    orch::api::RegisterSystemRoutes(router, database);

    orch::server::HttpServer server(config->server, router);
    if (auto started = server.Start(); !started) {
        ORCH_LOG_ERROR("cannot start", {{"error", started.error().message}});
        return 1;
    }
    ORCH_LOG_INFO("listening", {{"address", config->server.listen}, {"port", server.port()}});

    std::thread signal_waiter([&server, signals] {
        int signal_number = 0;
        sigwait(&signals, &signal_number);
        ORCH_LOG_INFO("shutting down", {{"signal", signal_number}});
        server.Stop();
    });
    signal_waiter.detach();

    server.Run();
    database.Stop();
    ORCH_LOG_INFO("stopped");
    return 0;
}
