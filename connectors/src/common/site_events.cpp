#include "connectors/site_events.hpp"

#include "common/json.hpp"

#include <algorithm>

namespace orch::connectors {
namespace {

constexpr std::size_t kMaxPlanApps = 64;  // a plan larger than this names enough of its groups
constexpr int kMaxDepth = 32;             // Marathon plans nest groups; deeper is not a plan

// A string member, or "" when absent or not a string (a hostile site sends anything).
std::string StringMember(const Json& object, const char* name) {
    const auto it = object.find(name);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "/<group>/<app>..." → "/<group>": the deployment's group, its handle's physical id.
std::string GroupOf(std::string_view app_id) {
    if (app_id.size() < 2 || app_id.front() != '/') {
        return {};
    }
    const auto end = app_id.find('/', 1);
    return std::string(app_id.substr(0, end));
}

void AddGroup(SiteChange& change, std::string_view app_id) {
    std::string group = GroupOf(app_id);
    if (!group.empty() &&
        std::find(change.resources.begin(), change.resources.end(), group) == change.resources.end()) {
        change.resources.push_back(std::move(group));
    }
}

void AddPlanApps(SiteChange& change, const Json& plan) {
    const auto steps = plan.find("steps");
    if (steps == plan.end() || !steps->is_array()) {
        return;
    }
    std::size_t seen = 0;
    for (const auto& step : *steps) {
        const auto actions = step.is_object() ? step.find("actions") : step.end();
        if (!step.is_object() || actions == step.end() || !actions->is_array()) {
            continue;
        }
        for (const auto& action : *actions) {
            if (++seen > kMaxPlanApps) {
                return;
            }
            if (action.is_object()) {
                AddGroup(change, StringMember(action, "app"));
            }
        }
    }
}

}  // namespace

void LineSplitter::Feed(std::string_view bytes, const std::function<void(std::string_view line)>& on_line) {
    while (!bytes.empty()) {
        const auto nl = bytes.find('\n');
        const std::string_view piece = bytes.substr(0, nl);
        if (!skipping_ && partial_.size() + piece.size() > max_line_) {
            skipping_ = true;  // over the bound: drop the whole line, keep nothing of it
            partial_.clear();
            ++dropped_;
        }
        if (!skipping_) {
            partial_.append(piece);
        }
        if (nl == std::string_view::npos) {
            return;
        }
        if (!skipping_) {
            std::string_view line = partial_;
            if (!line.empty() && line.back() == '\r') {
                line.remove_suffix(1);
            }
            on_line(line);
        }
        partial_.clear();
        skipping_ = false;
        bytes.remove_prefix(nl + 1);
    }
}

void SseParser::Feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event) {
    lines_.Feed(bytes, [&](std::string_view line) { Line(line, on_event); });
}

void SseParser::Line(std::string_view line, const std::function<void(const SseEvent&)>& on_event) {
    if (line.empty()) {
        if (oversized_) {
            ++dropped_;
        } else if (!current_.data.empty() || !current_.type.empty()) {
            on_event(current_);
        }
        current_ = SseEvent{};
        oversized_ = false;
        return;
    }
    if (line.front() == ':') {
        return;  // a comment: heartbeats
    }
    const auto colon = line.find(':');
    const std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    if (field == "event") {
        current_.type.assign(value.substr(0, 128));
    } else if (field == "id") {
        current_.id.assign(value.substr(0, 128));
    } else if (field == "data" && !oversized_) {
        if (current_.data.size() + value.size() + 1 > max_event_) {
            oversized_ = true;
            current_.data.clear();
            return;
        }
        if (!current_.data.empty()) {
            current_.data.push_back('\n');
        }
        current_.data.append(value);
    }
}

SiteChange MarathonEventChange(const SseEvent& event) {
    SiteChange change;
    auto parsed = ParseJson(event.data, kMaxDepth);
    if (!parsed || !parsed->is_object()) {
        return change;
    }
    const Json& data = *parsed;
    const std::string type = event.type.empty() ? StringMember(data, "eventType") : event.type;
    if (type == "status_update_event" || type == "health_status_changed_event") {
        AddGroup(change, StringMember(data, "appId"));
    } else if (type == "deployment_success" || type == "deployment_failed") {
        if (const auto plan = data.find("plan"); plan != data.end() && plan->is_object()) {
            AddPlanApps(change, *plan);
        }
    }
    return change;
}

std::optional<SiteChange> KubernetesWatchChange(std::string_view line) {
    auto parsed = ParseJson(line, kMaxDepth);
    if (!parsed || !parsed->is_object()) {
        return std::nullopt;
    }
    const auto found = parsed->find("object");
    if (found == parsed->end() || !found->is_object()) {
        return std::nullopt;
    }
    const Json& object = *found;
    SiteChange change;
    if (StringMember(*parsed, "type") == "ERROR") {
        const auto code = object.find("code");
        change.expired = code != object.end() && code->is_number_integer() && code->get<int>() == 410;
        return change;
    }
    const auto metadata = object.find("metadata");
    if (metadata == object.end() || !metadata->is_object()) {
        return std::nullopt;
    }
    const std::string ns = StringMember(*metadata, "namespace");
    if (!ns.empty() && ns.size() <= 253) {
        change.resources.push_back(ns);
    }
    const std::string version = StringMember(*metadata, "resourceVersion");
    if (version.size() <= 64) {
        change.resource_version = version;
    }
    return change;
}

std::vector<std::string> SiteWatchPaths(TargetKind kind) {
    switch (kind) {
        case TargetKind::kMarathon:
            return {
                "/v2/events?event_type=status_update_event&event_type=health_status_changed_event"
                "&event_type=deployment_success&event_type=deployment_failed"};
        case TargetKind::kKubernetes:
            // Workloads and their pods: a pod turning ready and its Deployment or Job catching up.
            return {
                "/api/v1/pods?watch=true", "/apis/apps/v1/deployments?watch=true", "/apis/batch/v1/jobs?watch=true"};
        default:
            return {};
    }
}

}  // namespace orch::connectors
