#pragma once

#include "common/result.hpp"
#include "orchestrator/auth/owner_filter.hpp"
#include "orchestrator/domain/event.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orch::store {

/// Which events a stream reads next. `owner` has no default: a query cannot be built without the
/// caller's scope (the same OwnerFilter as the deployments list).
struct EventQuery {
    auth::OwnerFilter owner;
    std::optional<std::string> deployment_id;  ///< none: every deployment `owner` may see
    std::int64_t after_id = 0;                 ///< exclusive: the stream's Last-Event-ID
    int limit = 100;
};

/// An event of the log with the owner it was written for (the owner columns copied from its
/// deployment): what the process-wide window of recent events holds, so that each stream's share
/// is scoped in memory by the same OwnerFilter (OwnerFilter::Admits) as its own reads.
struct LoggedEvent {
    domain::Event event;
    std::string owner_issuer;  ///< '' for the events of a deployment created while auth was disabled
    std::string owner_subject;
};

/// The read side of the durable event log (the workflow writes it with its commits,
/// WorkflowStore::Commit). Ids increase in commit order, so reading after an id misses nothing.
class EventStore {
   public:
    virtual ~EventStore() = default;
    /// Up to `limit` events with id > after_id in id order, scoped to `owner`.
    virtual Result<std::vector<domain::Event>> After(const EventQuery& query) = 0;
    /// The highest id committed so far (0 when the log is empty): where a stream that asks for
    /// no history starts.
    virtual Result<std::int64_t> LatestId() = 0;
    /// Every event with after_id < id <= up_to_id in id order, at most `limit` (1..10,000),
    /// whoever owns it: the one read of the process's event window (api::EventWindow), shared
    /// by all its streams, each of which keeps only what its own query admits. Never a caller's
    /// answer by itself.
    virtual Result<std::vector<LoggedEvent>> Range(std::int64_t after_id, std::int64_t up_to_id, int limit) = 0;
};

}  // namespace orch::store
