// site-sim: the Marathon, Chronos, Kubernetes and IM simulators of one site, one loopback port each.
// Prints the chosen ports as one JSON line on stdout, serves until SIGINT/SIGTERM.
#include "common/log.hpp"
#include "orchestrator/server/http_server.hpp"
#include "orchestrator/server/router.hpp"
#include "sim/schema_store.hpp"
#include "sim/site_event_feed.hpp"
#include "sim/site_sim.hpp"

#include <pthread.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX sigwait and sigset_t
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Args {
    std::array<int, 4> ports{0, 0, 0, 0};  // marathon, chronos, kubernetes, im
    std::string config_path;
    std::string schema_dir;
    std::string state_file;  ///< empty: the site keeps nothing across a restart
    double speed = -1;
    std::string log_level = "warn";
};

int Usage(const char* problem) {
    std::fprintf(
        stderr,
        "site-sim: %s\nusage: site-sim [--marathon-port N] [--chronos-port N] [--kubernetes-port N] [--im-port N]\n"
        "                [--config FILE] [--schema-dir DIR] [--speed X] [--log-level LEVEL] [--state-file FILE]\n"
        "  Ports default to 0 (pick a free one); the chosen ports are printed as one JSON line.\n"
        "  --state-file: the accepted Marathon, Chronos and Kubernetes writes are appended to FILE and\n"
        "  replayed from it at start, so a restarted site comes back with its workload.\n",
        problem
    );
    return 2;
}

bool ParsePort(const char* text, int& out) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 0 || value > 65535) {
        return false;
    }
    out = static_cast<int>(value);
    return true;
}

// Returns an error text, or empty on success.
std::string ParseArgs(int argc, char** argv, Args& args) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) {
            return "missing value after " + arg;
        }
        const char* value = argv[++i];
        if (arg == "--marathon-port" || arg == "--chronos-port" || arg == "--kubernetes-port" || arg == "--im-port") {
            const std::size_t index = arg == "--marathon-port"  ? 0
                                      : arg == "--chronos-port" ? 1
                                      : arg == "--im-port"      ? 3
                                                                : 2;
            if (!ParsePort(value, args.ports[index])) {
                return "bad port '" + std::string(value) + "'";
            }
        } else if (arg == "--config") {
            args.config_path = value;
        } else if (arg == "--state-file") {
            args.state_file = value;
        } else if (arg == "--schema-dir") {
            args.schema_dir = value;
        } else if (arg == "--speed") {
            args.speed = std::atof(value);
        } else if (arg == "--log-level") {
            args.log_level = value;
        } else {
            return "unknown option " + arg;
        }
    }
    return "";
}

orch::Result<orch::sim::SimConfig> LoadConfig(const Args& args) {
    orch::Json document = nullptr;
    if (!args.config_path.empty()) {
        std::ifstream in(args.config_path);
        if (!in) {
            return orch::Error::NotFound("cannot read " + args.config_path);
        }
        std::ostringstream text;
        text << in.rdbuf();
        auto parsed = orch::sim::YamlToJson(text.str(), args.config_path);
        if (!parsed) {
            return parsed.error();
        }
        document = std::move(*parsed);
    }
    auto config = orch::sim::ParseSimConfig(document);
    if (config && args.speed >= 0) {
        config->speed = args.speed;
    }
    return config;
}

orch::sim::SimRequest ToSimRequest(const orch::server::Request& request) {
    orch::sim::SimRequest out;
    out.method = request.method;
    out.path = request.path;
    out.query = request.query;
    out.headers = request.headers;
    out.body = request.body;
    return out;
}

// nullopt: an injected reset, the server closes the connection without answering.
std::optional<orch::server::Response> ToResponse(orch::sim::SimResponse sim) {
    if (sim.reset) {
        return std::nullopt;
    }
    orch::server::Response out;
    out.status = sim.status;
    out.body = std::move(sim.body);
    out.content_type = std::move(sim.content_type);
    out.headers = std::move(sim.headers);
    return out;
}

// A change feed as a streamed response, read every 50 ms on the server's workers.
template <typename Feed>
class FeedStream final : public orch::server::ResponseStream {
   public:
    FeedStream(std::unique_ptr<Feed> feed, std::string first) : feed_(std::move(feed)), first_(std::move(first)) {}
    bool Next(std::string& out) override {
        out += first_;  // what the opening read found (a watch's ADDED objects)
        first_.clear();
        return feed_->Next(out);
    }
    std::chrono::milliseconds interval() const override { return std::chrono::milliseconds(50); }
    std::string Dropped() const override { return {}; }

   private:
    std::unique_ptr<Feed> feed_;
    std::string first_;
};

template <typename Feed>
orch::server::Response Streamed(std::unique_ptr<Feed> feed, const char* content_type) {
    std::string first;
    if (!feed->Next(first)) {  // refused (credentials): answered as the API would, not streamed
        return orch::server::Response::Json(401, orch::Json{{"message", "Unauthorized"}});
    }
    return orch::server::Response::Stream(
        content_type, std::make_shared<FeedStream<Feed>>(std::move(feed), std::move(first))
    );
}

// Marathon's GET /v2/events and Kubernetes' ?watch=true: the sites' change notifications.
std::optional<orch::server::Response> ChangeStream(
    orch::sim::SiteSim& site, orch::sim::SimApi api, const orch::server::Request& request
) {
    if (request.method != "GET") {
        return std::nullopt;
    }
    if (api == orch::sim::SimApi::kMarathon && request.path == "/v2/events") {
        return Streamed(std::make_unique<orch::sim::MarathonEventFeed>(site, request.headers), "text/event-stream");
    }
    if (api != orch::sim::SimApi::kKubernetes) {
        return std::nullopt;
    }
    bool watch = false;
    bool resumed = false;
    std::string query;
    for (const auto& [name, value] : request.query) {
        if (name == "watch") {
            watch = value == "true" || value == "1";
        } else if (name == "resourceVersion") {
            resumed = !value.empty();
        } else if (name != "timeoutSeconds" && name != "allowWatchBookmarks") {
            query += (query.empty() ? "?" : "&") + orch::http::UrlEncode(name) + "=" + orch::http::UrlEncode(value);
        }
    }
    if (!watch) {
        return std::nullopt;
    }
    return Streamed(
        std::make_unique<orch::sim::KubernetesWatchFeed>(site, request.path + query, request.headers, resumed),
        "application/json"
    );
}

// The simulators own their paths (Marathon app ids contain slashes), so every method and depth
// goes to one handler.
void AddCatchAll(orch::server::Router& router, orch::sim::SiteSim& site, orch::sim::SimApi api) {
    const auto handler = [&site, api](const orch::server::Request& request) -> std::optional<orch::server::Response> {
        if (auto stream = ChangeStream(site, api, request)) {
            return stream;
        }
        auto response = site.Handle(api, ToSimRequest(request));
        if (response.delay.count() > 0) {
            std::this_thread::sleep_for(response.delay);  // a slow-reply fault; runs on a worker thread
        }
        return ToResponse(std::move(response));
    };
    for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}) {
        std::string pattern;
        for (int depth = 0; depth <= 16; ++depth) {
            router.AddDropping(method, pattern.empty() ? "/" : pattern, handler);
            pattern += "/{s" + std::to_string(depth) + "}";
        }
    }
}

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
    Args args;
    if (const std::string problem = ParseArgs(argc, argv, args); !problem.empty()) {
        return Usage(problem.c_str());
    }
    orch::log::Level level = orch::log::Level::kWarn;
    if (!orch::log::ParseLevel(args.log_level, level)) {
        return Usage("bad --log-level");
    }
    orch::log::SetLevel(level);
    auto config = LoadConfig(args);
    if (!config) {
        std::fprintf(stderr, "site-sim: configuration error: %s\n", config.error().message.c_str());
        return 2;
    }
    auto schemas =
        args.schema_dir.empty() ? orch::sim::LoadEmbeddedSchemas() : orch::sim::LoadSchemasFromDir(args.schema_dir);
    if (!schemas) {
        std::fprintf(stderr, "site-sim: schemas: %s (use --schema-dir)\n", schemas.error().message.c_str());
        return 2;
    }
    if (config->im_tosca_mirrors.empty()) {
        if (const char* mirrors = std::getenv("ORCHESTRATOR_TOSCA_MIRRORS"); mirrors != nullptr) {
            config->im_tosca_mirrors = mirrors;
        }
    }
    auto site = orch::sim::SiteSim::Create(std::move(*config), std::move(*schemas));
    if (!site) {
        std::fprintf(stderr, "site-sim: %s\n", site.error().message.c_str());
        return 2;
    }
    if (!args.state_file.empty()) {
        auto journal = orch::sim::SiteJournal::Open(args.state_file);
        if (!journal) {
            std::fprintf(stderr, "site-sim: %s\n", journal.error().message.c_str());
            return 2;
        }
        (*site)->AttachJournal(std::move(*journal));  // before the ports open: no request sees a half-replayed site
    }
    const std::array<orch::sim::SimApi, 4> apis = {
        orch::sim::SimApi::kMarathon,
        orch::sim::SimApi::kChronos,
        orch::sim::SimApi::kKubernetes,
        orch::sim::SimApi::kIm};
    std::vector<std::unique_ptr<orch::server::Router>> routers;
    std::vector<std::unique_ptr<orch::server::HttpServer>> servers;
    orch::Json ports = orch::Json::object();
    for (std::size_t i = 0; i < apis.size(); ++i) {
        routers.push_back(std::make_unique<orch::server::Router>());
        AddCatchAll(*routers.back(), **site, apis[i]);
        orch::server::ServerOptions options;
        options.listen = "127.0.0.1:" + std::to_string(args.ports[i]);
        options.io_threads = 1;
        options.worker_threads = 4;
        options.access_log = false;
        servers.push_back(std::make_unique<orch::server::HttpServer>(options, *routers.back()));
        if (auto started = servers.back()->Start(); !started) {
            std::fprintf(
                stderr,
                "site-sim: %s: %s\n",
                std::string(orch::sim::SimApiName(apis[i])).c_str(),
                started.error().message.c_str()
            );
            return 1;
        }
        ports[std::string(orch::sim::SimApiName(apis[i]))] = servers.back()->port();
    }
    ports["pid"] = static_cast<int>(::getpid());
    std::printf("%s\n", ports.dump().c_str());
    std::fflush(stdout);

    std::vector<std::thread> runners;
    runners.reserve(servers.size());
    for (auto& server : servers) {
        runners.emplace_back([&server] { server->Run(); });
    }
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    for (auto& server : servers) {
        server->Stop();
    }
    for (auto& runner : runners) {
        runner.join();
    }
    return 0;
}
