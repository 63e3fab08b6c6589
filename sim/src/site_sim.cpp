#include "sim/site_sim.hpp"

#include "common/log.hpp"
#include "tosca/engine.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace orch::sim {
namespace {

constexpr std::size_t kMaxRejections = 100;
constexpr std::size_t kMaxTraces = 200;
constexpr std::size_t kMaxTraceparentBytes = 512;

std::string Base64Decode(std::string_view text) {
    static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (const char c : text) {
        if (c == '=') {
            break;
        }
        const auto pos = kAlphabet.find(c);
        if (pos == std::string_view::npos) {
            return {};
        }
        buffer = (buffer << 6U) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU);
        }
    }
    return out;
}

std::string Lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

std::string KubeReason(int status) {
    switch (status) {
        case 400:
            return "BadRequest";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "NotFound";
        case 409:
            return "Conflict";
        case 429:
            return "TooManyRequests";
        case 500:
            return "InternalError";
        case 503:
            return "ServiceUnavailable";
        case 504:
            return "Timeout";
        default:
            return "Unknown";
    }
}

std::unique_ptr<tosca::TemplateEngine> MakeImEngine(const SimConfig& config) {
    tosca::EngineOptions options;
    if (auto mirrors = tosca::ParseMirrorMap(config.im_tosca_mirrors); mirrors) {
        options.mirrors = std::move(*mirrors);
    } else {
        ORCH_LOG_WARN("site-sim: im.tosca_mirrors ignored", {{"error", mirrors.error().message}});
    }
    return std::make_unique<tosca::TemplateEngine>(std::move(options));
}

std::shared_ptr<const ImSwagger> EmbeddedSwagger() {
    static const auto kLoaded = ImSwagger::Embedded();  // read-only once loaded: shared by every site
    const auto& loaded = kLoaded;
    if (!loaded) {
        ORCH_LOG_WARN("site-sim: no IM API description; IM requests answer 500", {{"error", loaded.error().message}});
        return nullptr;
    }
    return *loaded;
}

}  // namespace

std::string_view SimApiName(SimApi api) {
    switch (api) {
        case SimApi::kMarathon:
            return "marathon";
        case SimApi::kChronos:
            return "chronos";
        case SimApi::kKubernetes:
            return "kubernetes";
        case SimApi::kIm:
            return "im";
    }
    return "marathon";
}

SimResponse ApiError(SimApi api, int status, const std::string& message) {
    switch (api) {
        case SimApi::kMarathon:
            return SimResponse::JsonBody(status, {{"message", message}});
        case SimApi::kChronos:
            return SimResponse::Text(status, message);
        case SimApi::kIm:
            return SimResponse::JsonBody(status, {{"message", message}, {"code", status}});
        case SimApi::kKubernetes:
            return SimResponse::JsonBody(
                status,
                {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", Json::object()},
                 {"status", "Failure"},
                 {"message", message},
                 {"reason", KubeReason(status)},
                 {"code", status}}
            );
    }
    return SimResponse::Text(status, message);
}

SiteSim::SiteSim(SimConfig config, std::shared_ptr<const SchemaSet> schemas)
    : config_(std::move(config)),
      schemas_(std::move(schemas)),
      clock_(config_.speed),
      cluster_(config_.mesos_agents),
      marathon_(config_, *schemas_, cluster_),
      chronos_(config_, cluster_),
      kubernetes_(config_, *schemas_),
      im_engine_(MakeImEngine(config_)),
      im_(config_, EmbeddedSwagger(), im_engine_.get()) {}

SiteSim::~SiteSim() = default;

Result<std::unique_ptr<SiteSim>> SiteSim::Create(SimConfig config, std::shared_ptr<const SchemaSet> schemas) {
    if (!schemas) {
        return Error::InvalidArgument("site-sim needs the Marathon and Kubernetes schemas");
    }
    const Json faults = config.faults;
    auto sim = std::make_unique<SiteSim>(std::move(config), std::move(schemas));
    for (const auto& rule : faults) {
        auto added = sim->AddFault(rule);
        if (!added) {
            return Error::InvalidArgument("faults: " + added.error().message);
        }
    }
    return sim;
}

bool SiteSim::Authorized(const SimRequest& request) const {
    if (config_.tokens.empty() && config_.basic.empty()) {
        return true;
    }
    const std::string header = request.Header("Authorization");
    const auto space = header.find(' ');
    if (space == std::string::npos) {
        return false;
    }
    const std::string scheme = Lower(header.substr(0, space));
    const std::string value = header.substr(space + 1);
    if (scheme == "bearer") {
        return std::find(config_.tokens.begin(), config_.tokens.end(), value) != config_.tokens.end();
    }
    if (scheme == "basic") {
        const std::string decoded = Base64Decode(value);
        return std::find(config_.basic.begin(), config_.basic.end(), decoded) != config_.basic.end();
    }
    return false;
}

void SiteSim::AdvanceAll(double now) {
    marathon_.Advance(now, faults_.ExhaustedResources("marathon"));
    chronos_.Advance(now, faults_.ExhaustedResources("chronos"));
    kubernetes_.Advance(now, faults_.ExhaustedResources("kubernetes"));
    im_.Advance(now);
}

SimResponse SiteSim::Dispatch(SimApi api, const SimRequest& request, double now) {
    switch (api) {
        case SimApi::kMarathon:
            return marathon_.Handle(request, now);
        case SimApi::kChronos:
            return chronos_.Handle(request, now);
        case SimApi::kKubernetes:
            return kubernetes_.Handle(request, now);
        case SimApi::kIm:
            return im_.Handle(request, now, nullptr);
    }
    return ApiError(api, 404, "unknown API");
}

SimResponse SiteSim::GuardedDispatch(SimApi api, const SimRequest& request, double now) {
    // Bodies are validated before use, but a shape no check anticipated must still end in an
    // answer, never in a dropped connection.
    try {
        return Dispatch(api, request, now);
    } catch (const Json::type_error& e) {
        return ApiError(api, 400, std::string("site-sim could not interpret the request: ") + e.what());
    } catch (const std::exception& e) {
        ORCH_LOG_ERROR(
            "site-sim internal error", {{"api", SimApiName(api)}, {"path", request.path}, {"error", e.what()}}
        );
        return ApiError(api, 500, std::string("site-sim internal error: ") + e.what());
    }
}

SimResponse SiteSim::GuardedIm(const SimRequest& request, double now, const FaultRule* fault) {
    try {
        return im_.Handle(request, now, fault);
    } catch (const std::exception& e) {
        return ApiError(SimApi::kIm, 500, std::string("site-sim internal error: ") + e.what());
    }
}

void SiteSim::RecordRejection(SimApi api, const SimRequest& request, const SimResponse& response) {
    const bool writes = request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
    if (!writes || (response.status != 400 && response.status != 422)) {
        return;
    }
    if (rejections_.size() >= kMaxRejections) {
        rejections_.pop_front();
    }
    rejections_.push_back({
        {"api", SimApiName(api)},
        {"method", request.method},
        {"path", request.path},
        {"status", response.status},
        {"response", response.body.substr(0, 4096)},
        {"request", request.body.substr(0, 4096)},
    });
    ORCH_LOG_DEBUG(
        "site-sim rejected a request", {{"api", SimApiName(api)}, {"path", request.path}, {"status", response.status}}
    );
}

SimResponse SiteSim::Observe(SimApi api, const SimRequest& request) {
    const std::lock_guard lock(mutex_);
    if (!Authorized(request)) {
        return ApiError(api, 401, "Unauthorized");
    }
    const double now = clock_.Now();
    AdvanceAll(now);
    return GuardedDispatch(api, request, now);
}

SimResponse SiteSim::Handle(SimApi api, const SimRequest& request) {
    if (request.path.rfind("/__sim/", 0) == 0) {
        return Admin(request);
    }
    const std::lock_guard lock(mutex_);
    const std::string api_name(SimApiName(api));
    // What the orchestrator propagates (W3C trace context), for tests to check; bounded.
    if (const std::string parent = request.Header("traceparent"); !parent.empty()) {
        if (traces_.size() >= kMaxTraces) {
            traces_.pop_front();
        }
        traces_.push_back(
            {{"api", api_name},
             {"method", request.method},
             {"path", request.path},
             {"traceparent", parent.substr(0, kMaxTraceparentBytes)}}
        );
    }
    const auto fault = faults_.MatchRequest(api_name, request.method, request.path);
    if (fault && fault->kind == FaultKind::kReset) {
        SimResponse reset;
        reset.reset = true;
        return reset;
    }
    if (fault && fault->kind == FaultKind::kStatus) {
        return ApiError(api, fault->status, "site-sim injected fault #" + std::to_string(fault->id));
    }
    // IM reads its own auth header (records, not a bearer token): ImSim checks it.
    if (api != SimApi::kIm && !Authorized(request)) {
        return ApiError(api, 401, "Unauthorized");
    }
    const double now = clock_.Now();
    AdvanceAll(now);
    const bool im_outcome = fault && (fault->kind == FaultKind::kUnconfigured || fault->kind == FaultKind::kVmFailed);
    SimResponse response =
        api == SimApi::kIm && im_outcome ? GuardedIm(request, now, &*fault) : GuardedDispatch(api, request, now);
    if (request.method != "GET") {
        AdvanceAll(now);  // what a write started (launches, scheduling) happens now, not at the next request
    }
    RecordRejection(api, request, response);
    Journal(api, request, response);
    if (fault && fault->kind == FaultKind::kSlow) {
        response.delay = fault->delay;
    }
    if (fault && fault->kind == FaultKind::kMalformed) {
        response.body = "{\"site-sim\": \"malformed\", " + response.body.substr(0, response.body.size() / 2);
        response.content_type = "application/json";
    }
    return response;
}

namespace {

// The APIs whose objects are named by the client, so a replay recreates them under the same names.
bool Journaled(SimApi api) {
    return api == SimApi::kMarathon || api == SimApi::kChronos || api == SimApi::kKubernetes;
}

std::optional<SimApi> ParseSimApi(std::string_view name) {
    for (const SimApi api : {SimApi::kMarathon, SimApi::kChronos, SimApi::kKubernetes, SimApi::kIm}) {
        if (SimApiName(api) == name) {
            return api;
        }
    }
    return std::nullopt;
}

}  // namespace

void SiteSim::Journal(SimApi api, const SimRequest& request, const SimResponse& response) {
    if (journal_ && Journaled(api) && request.method != "GET" && response.status < 300) {
        journal_->Append(std::string(SimApiName(api)), request);
    }
}

void SiteSim::AttachJournal(std::unique_ptr<SiteJournal> journal) {
    const std::lock_guard lock(mutex_);
    for (const auto& entry : journal->loaded()) {
        const auto api = ParseSimApi(entry.api);
        if (!api || !Journaled(*api)) {
            continue;
        }
        const double now = clock_.Now();
        AdvanceAll(now);
        const SimResponse replayed = GuardedDispatch(*api, entry.request, now);
        if (replayed.status >= 300) {
            ORCH_LOG_WARN(
                "site-sim: a journaled write was refused on replay",
                {{"api", entry.api}, {"path", entry.request.path}, {"status", replayed.status}}
            );
        }
        AdvanceAll(now);
    }
    journal_ = std::move(journal);
}

SimResponse SiteSim::Admin(const SimRequest& request) {
    const std::string& path = request.path;
    const std::string& method = request.method;
    if (path == "/__sim/health") {
        return SimResponse::JsonBody(200, {{"status", "ok"}});
    }
    if (path == "/__sim/objects" && method == "GET") {
        return SimResponse::JsonBody(200, Objects());
    }
    if (path == "/__sim/faults") {
        if (method == "GET") {
            const std::lock_guard lock(mutex_);
            return SimResponse::JsonBody(200, faults_.ToJson());
        }
        if (method == "DELETE") {
            ClearFaults();
            return SimResponse::Empty(204);
        }
        if (method == "POST") {
            auto body = ParseJson(request.body);
            if (!body) {
                return SimResponse::JsonBody(400, {{"message", body.error().message}});
            }
            const Json rules = body->is_array() ? *body : Json::array({*body});
            Json added = Json::array();
            for (const auto& rule : rules) {
                auto result = AddFault(rule);
                if (!result) {
                    return SimResponse::JsonBody(400, {{"message", result.error().message}, {"added", added}});
                }
                added.push_back(result->ToJson());
            }
            return SimResponse::JsonBody(201, added);
        }
    }
    if (path == "/__sim/clock") {
        if (method == "POST") {
            auto body = ParseJson(request.body);
            if (!body || !body->is_object() || !(*body)["advance_seconds"].is_number() ||
                (*body)["advance_seconds"].get<double>() < 0) {
                return SimResponse::JsonBody(
                    400, {{"message", "expected {\"advance_seconds\": <non-negative number>}"}}
                );
            }
            AdvanceClock((*body)["advance_seconds"].get<double>());
        } else if (method != "GET") {
            return SimResponse::JsonBody(405, {{"message", "GET or POST"}});
        }
        return SimResponse::JsonBody(200, {{"now", FormatIsoTime(clock_.Now())}, {"speed", clock_.speed()}});
    }
    if (path == "/__sim/capacity") {
        const std::lock_guard lock(mutex_);
        if (method == "PUT") {
            auto body = ParseJson(request.body);
            if (!body || !body->is_object()) {
                return SimResponse::JsonBody(
                    400, {{"message", "expected {\"mesos_agents\": [...], \"kube_nodes\": [...]}"}}
                );
            }
            SimConfig updated = config_;
            if (auto status = ApplyCapacity(*body, updated); !status) {
                return SimResponse::JsonBody(400, {{"message", status.error().message}});
            }
            config_.mesos_agents = updated.mesos_agents;
            config_.kube_nodes = updated.kube_nodes;
            cluster_.Reconfigure(config_.mesos_agents);
            kubernetes_.SetNodes(config_.kube_nodes);
        }
        return SimResponse::JsonBody(200, CapacityToJson(config_));
    }
    if (path == "/__sim/rejections") {
        if (method == "DELETE") {
            const std::lock_guard lock(mutex_);
            rejections_.clear();
            return SimResponse::Empty(204);
        }
        return SimResponse::JsonBody(200, Rejections());
    }
    if (path == "/__sim/traces" && method == "GET") {
        return SimResponse::JsonBody(200, Traces());
    }
    return SimResponse::JsonBody(404, {{"message", "unknown site-sim admin endpoint " + path}});
}

Json SiteSim::Objects() {
    const std::lock_guard lock(mutex_);
    AdvanceAll(clock_.Now());
    return {
        {"marathon", marathon_.Objects()},
        {"chronos", chronos_.Objects()},
        {"kubernetes", kubernetes_.Objects()},
        {"im", im_.Objects()},
        {"mesos_agents", cluster_.ToJson()},
    };
}

Result<FaultRule> SiteSim::AddFault(const Json& rule) {
    const std::lock_guard lock(mutex_);
    return faults_.Add(rule);
}

void SiteSim::ClearFaults() {
    const std::lock_guard lock(mutex_);
    faults_.Clear();
}

void SiteSim::AdvanceClock(double seconds) {
    clock_.Advance(seconds);
}

Json SiteSim::Rejections() {
    const std::lock_guard lock(mutex_);
    Json out = Json::array();
    for (const auto& r : rejections_) {
        out.push_back(r);
    }
    return out;
}

Json SiteSim::Traces() {
    const std::lock_guard lock(mutex_);
    Json out = Json::array();
    for (const auto& t : traces_) {
        out.push_back(t);
    }
    return out;
}

}  // namespace orch::sim
