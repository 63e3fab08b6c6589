#pragma once

#include "sim/site_sim.hpp"

#include <cstddef>
#include <map>
#include <string>

namespace orch::sim {

// The sites' change notifications as the simulator shows them: Marathon's event bus
// (GET /v2/events, Server-Sent Events) and Kubernetes watches (?watch=true, one JSON object per
// line). Each Next reads the simulator's state as a client would (through SiteSim::Handle, with
// the stream's own credentials) and writes what changed since the last call; the transport calls
// it every few tens of milliseconds. At most kMaxTracked objects are followed per stream.

/// Marathon: one `status_update_event` per task whose state changed (or that appeared), with
/// Marathon's fields (appId, taskId, taskStatus, timestamp). The first call only takes stock.
class MarathonEventFeed {
   public:
    MarathonEventFeed(SiteSim& site, http::Headers headers) : site_(site), headers_(std::move(headers)) {}
    /// The SSE text to send now ("" when nothing changed); false when the site refuses the stream.
    bool Next(std::string& out);

   private:
    SiteSim& site_;
    http::Headers headers_;
    std::map<std::string, std::string> tasks_;  // task id → state
    bool first_ = true;
};

/// Kubernetes: one {"type": ADDED|MODIFIED|DELETED, "object": ...} line per object of the watched
/// collection (`list_target`: the path with the query, without watch) whose resourceVersion
/// changed. Started without a resourceVersion, every existing object comes first as ADDED, as
/// the API server does; with one, the first call only takes stock.
class KubernetesWatchFeed {
   public:
    KubernetesWatchFeed(SiteSim& site, std::string list_target, http::Headers headers, bool resumed)
        : site_(site), list_target_(std::move(list_target)), headers_(std::move(headers)), first_(resumed) {}
    bool Next(std::string& out);

   private:
    SiteSim& site_;
    std::string list_target_;
    http::Headers headers_;
    std::map<std::string, std::pair<std::string, Json>> objects_;  // namespace/name → (version, object)
    bool first_;
};

inline constexpr std::size_t kMaxTracked = 10'000;

}  // namespace orch::sim
