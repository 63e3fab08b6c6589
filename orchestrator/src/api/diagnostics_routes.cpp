#include "orchestrator/api/diagnostics_routes.hpp"

#include "common/build_info.hpp"
#include "connectors/connector.hpp"
#include "orchestrator/api/event_stream.hpp"
#include "orchestrator/api/links.hpp"
#include "orchestrator/api/views.hpp"
#include "tosca/sensitive_inputs.hpp"

#include <map>
#include <string>

namespace orch::api {
namespace {

using server::Request;
using server::Response;

/// Cuts parts over their budget and records which ones, so the reader knows what is missing.
class Budget {
   public:
    explicit Budget(Json& truncated) : truncated_(truncated) {}

    /// The first `limit` bytes of `text` (at a UTF-8 boundary) and a marker saying how many were cut.
    std::string Head(const std::string& part, std::string text, std::size_t limit) {
        if (text.size() <= limit) {
            return text;
        }
        const std::size_t original = text.size();
        std::size_t cut = limit;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
            --cut;  // never split a UTF-8 sequence: the document must stay valid JSON text
        }
        text.resize(cut);
        Record(part, original, cut);
        return text + "\n[truncated: " + std::to_string(original - cut) + " of " + std::to_string(original) +
               " bytes omitted]";
    }

    /// The last `limit` bytes of `text`, with the marker first.
    std::string Tail(const std::string& part, const std::string& text, std::size_t limit) {
        if (text.size() <= limit) {
            return text;
        }
        std::size_t start = text.size() - limit;
        while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0U) == 0x80U) {
            ++start;
        }
        Record(part, text.size(), text.size() - start);
        return "[truncated: the first " + std::to_string(start) + " of " + std::to_string(text.size()) +
               " bytes omitted]\n" + text.substr(start);
    }

    /// The history stopped after `kept` events; the log goes on from event `next_id`.
    void RecordEvents(const std::string& part, std::size_t kept, std::int64_t next_id) {
        truncated_.push_back(Json{{"part", part}, {"keptEvents", kept}, {"nextEventId", next_id}});
    }

   private:
    void Record(const std::string& part, std::size_t original, std::size_t kept) {
        truncated_.push_back(Json{{"part", part}, {"originalBytes", original}, {"keptBytes", kept}});
    }
    Json& truncated_;
};

// The deployment's past as its event log tells it, oldest first: one entry per event (id, time,
// type, data), after CREATED and before the current STATUS. Read in pages under both limits, so
// a deployment polled for weeks cannot make the document (or the handler's work) unbounded.
// Empty when there is no log to read or it holds nothing of the deployment (written before the
// log existed, or purged after events.retention): the caller then falls back to the attempts.
Result<Json> EventHistory(
    ApiContext& ctx,
    const auth::Principal& principal,
    const domain::Deployment& d,
    const DiagnosticsLimits& limits,
    Budget& budget
) {
    Json history = Json::array();
    if (ctx.events == nullptr) {
        return history;
    }
    store::EventQuery query{.owner = auth::OwnerFilter::VisibleTo(principal), .deployment_id = d.id, .limit = 200};
    std::size_t bytes = 0;
    while (true) {
        ORCH_ASSIGN_OR_RETURN(const auto page, ctx.events->store().After(query));
        for (const auto& e : page) {
            Json entry{
                {"id", e.id},
                {"at", domain::FormatUtcMillis(e.time)},
                {"event", domain::EventTypeName(e.type)},
                {"data", e.data}};
            const std::size_t size = entry.dump(-1, ' ', false, Json::error_handler_t::replace).size();
            if (history.size() >= limits.history_events || bytes + size > limits.history_bytes) {
                budget.RecordEvents("history", history.size(), e.id);
                return history;
            }
            bytes += size;
            history.push_back(std::move(entry));
        }
        if (page.size() < static_cast<std::size_t>(query.limit)) {
            return history;
        }
        query.after_id = page.back().id;
    }
}

// What is known of the deployment's past without an event log: its creation, every attempt's
// start and end, and its current status since its last update, in time order.
Json StatusHistory(const domain::Deployment& d, const std::vector<domain::Attempt>& attempts) {
    Json history = Json::array();
    history.push_back(Json{{"at", domain::FormatUtcMillis(d.created_at)}, {"event", "CREATED"}});
    for (const auto& a : attempts) {
        history.push_back(Json{
            {"at", domain::FormatUtcMillis(a.started_at)},
            {"event", "ATTEMPT_STARTED"},
            {"seq", a.seq},
            {"providerId", a.provider_id}});
        if (a.finished_at) {
            history.push_back(Json{
                {"at", domain::FormatUtcMillis(*a.finished_at)},
                {"event", "ATTEMPT_" + std::string(domain::AttemptOutcomeName(a.outcome))},
                {"seq", a.seq},
                {"providerId", a.provider_id}});
        }
    }
    history.push_back(Json{
        {"at", domain::FormatUtcMillis(d.updated_at)}, {"event", "STATUS"}, {"status", domain::StatusName(d.status)}});
    return history;
}

// The site version each attempt's `attempt_started` event recorded (by attempt seq, 0-based).
std::map<int, std::string> SiteVersionsFrom(const Json& history) {
    std::map<int, std::string> out;
    for (const auto& e : history) {
        if (e.value("event", std::string()) != domain::EventTypeName(domain::EventType::kAttemptStarted)) {
            continue;
        }
        const Json data = e.value("data", Json::object());
        if (data.contains("siteVersion") && data["siteVersion"].is_string() && data.contains("seq") &&
            data["seq"].is_number_integer()) {
            out[data["seq"].get<int>() - 1] = data["siteVersion"].get<std::string>();
        }
    }
    return out;
}

Json Versions(const domain::Deployment& d, const std::vector<domain::Attempt>& attempts, const Json& history) {
    const auto site_versions = SiteVersionsFrom(history);
    const BuildInfo build = GetBuildInfo();
    const Json orchestrator{
        {"version", build.version}, {"gitCommit", build.git_commit}, {"buildTime", build.build_time}};
    Json sites = Json::array();
    for (const auto& a : attempts) {
        // Asked of the site when the attempt started (connectors that cannot ask say "unknown";
        // attempts from before the event log, or whose events were purged, too).
        const auto version = site_versions.find(a.seq);
        sites.push_back(Json{
            {"providerId", a.provider_id},
            {"providerName", a.provider_name},
            {"serviceId", a.service_id},
            {"version",
             version != site_versions.end() ? version->second : std::string(connectors::kUnknownSiteVersion)}});
    }
    Json versions{
        {"orchestrator", orchestrator},
        {"toscaEngine", orchestrator},  // built into the orchestrator: the same build
        {"sites", std::move(sites)}};
    if (d.kind) {
        versions["connectorKind"] = tosca::DeploymentKindName(*d.kind);
    }
    return versions;
}

Result<Response> GetDiagnostics(ApiContext& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx, request, auth::Access::kRead));
    ORCH_ASSIGN_OR_RETURN(const auto d, LoadVisible(ctx, principal, request, false));
    ORCH_ASSIGN_OR_RETURN(auto attempts, ctx.store.ListAttempts(d.id));
    ORCH_ASSIGN_OR_RETURN(const Json placement, ctx.store.GetPlacement(d.id));
    ORCH_ASSIGN_OR_RETURN(const std::string log, ctx.store.GetLog(d.id));
    const DiagnosticsLimits limits;
    Json truncated = Json::array();
    Budget budget(truncated);

    const tosca::TemplateRedaction redaction = tosca::RedactTemplate(d.template_text);
    Json doc = Json::object();
    doc["generatedAt"] = domain::FormatUtcMillis(ctx.clock.now());
    doc["deployment"] = DeploymentView(d, BaseUrl(request, ctx.external_base_url));
    doc["template"] = budget.Head("template", redaction.text, limits.template_bytes);
    doc["inputs"] = tosca::RedactInputs(d.parameters, redaction.sensitive_inputs);
    const std::string placement_text = placement.is_null() ? "" : placement.dump();
    if (placement_text.size() > limits.placement_bytes) {
        doc["placement"] = budget.Head("placement", placement_text, limits.placement_bytes);
    } else {
        doc["placement"] = placement;
    }
    Json attempt_views = Json::array();
    for (auto& a : attempts) {
        a.reason = budget.Head("attempts[" + std::to_string(a.seq) + "].reason", a.reason, limits.reason_bytes);
        attempt_views.push_back(AttemptView(a));
    }
    doc["attempts"] = std::move(attempt_views);
    doc["log"] = budget.Tail("log", log.empty() ? d.status_reason : log, limits.log_bytes);
    ORCH_ASSIGN_OR_RETURN(Json history, EventHistory(ctx, principal, d, limits, budget));
    if (history.empty()) {
        doc["historySource"] = "attempts";
        doc["history"] = StatusHistory(d, attempts);
    } else {
        history.insert(history.begin(), Json{{"at", domain::FormatUtcMillis(d.created_at)}, {"event", "CREATED"}});
        history.push_back(Json{
            {"at", domain::FormatUtcMillis(d.updated_at)},
            {"event", "STATUS"},
            {"status", domain::StatusName(d.status)}});
        doc["historySource"] = "events";
        doc["history"] = std::move(history);
    }
    doc["versions"] = Versions(d, attempts, doc["history"]);
    doc["truncated"] = std::move(truncated);
    return Response::Json(200, doc);
}

}  // namespace

void RegisterDiagnosticsRoutes(server::Router& router, ApiContext& ctx) {
    router.Add("GET", "/deployments/{id}/diagnostics", Wrap(ctx, GetDiagnostics), {.name = "deployments.diagnostics"});
}

}  // namespace orch::api
