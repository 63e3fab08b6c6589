#pragma once

#include "common/clock.hpp"
#include "connectors/connector.hpp"
#include "connectors/site_client_factory.hpp"
#include "orchestrator/workflow/site_watch_observer.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace orch::workflow {

/// workflow.site_watch_* (docs/configuration.md).
struct SiteWatchOptions {
    bool enabled = true;
    std::size_t max_sites = 16;  ///< sites watched at once; beyond, deployments rely on fast polls
    /// A stream is reopened after this long (fresh credentials, a half-dead connection noticed).
    std::chrono::milliseconds stream_life{300'000};
    std::chrono::milliseconds max_backoff{30'000};  ///< reconnect backoff: 0.5 s doubling to this
    /// A deployment stays of interest this long after its last poll said "in progress".
    std::chrono::milliseconds interest_ttl{600'000};
    std::size_t max_line = 1u << 20;        ///< a longer line or event from the site is skipped
    SiteWatchObserver* observer = nullptr;  ///< metrics (ops::SiteWatchMetrics); none: not reported
};

/// Prompt completion from the sites' own change notifications (Marathon's event stream,
/// Kubernetes watches): one subscriber per site with deployments in progress, on threads of its
/// own (never an I/O thread), reconnecting with backoff. When a notification names a resource of
/// such a deployment, its waiting poll becomes due now (WorkflowStore::PollNow) and the engine is
/// woken, so the poll step, the one code path for state, sees the change. Polls stay the fallback.
class SiteWatcher {
   public:
    /// `store` and `clients` must outlive the watcher; `wake` tells the engine to look for jobs.
    SiteWatcher(
        WorkflowStore& store,
        connectors::SiteClientFactory& clients,
        const Clock& clock,
        SiteWatchOptions options,
        std::function<void()> wake
    );
    ~SiteWatcher();
    SiteWatcher(const SiteWatcher&) = delete;
    SiteWatcher& operator=(const SiteWatcher&) = delete;

    /// The deployment of `handle` (its target with credentials) waits for its site: watch the
    /// site when its kind has notifications. Called by every poll that found it in progress.
    void Watch(const connectors::Handle& handle);
    /// Joins every subscriber (each notices within a fraction of a second).
    void Stop();

    /// Notifications that made a poll due (tests, metrics).
    std::size_t expedited() const { return expedited_.load(); }

   private:
    struct Site;
    void Subscribe(const std::shared_ptr<Site>& site, const std::string& path);
    void Changed(Site& site, connectors::TargetKind kind, const std::vector<std::string>& resources);
    bool Wait(std::chrono::milliseconds pause);
    /// A stream ended: to the observer (`opened`: it had been answered 200).
    void Report(connectors::TargetKind kind, bool opened, StreamEnd end, std::size_t skipped) const;

    WorkflowStore& store_;
    connectors::SiteClientFactory& clients_;
    const Clock& clock_;
    SiteWatchOptions options_;
    std::function<void()> wake_;
    std::mutex mutex_;
    std::condition_variable stopped_;
    bool stop_ = false;
    std::map<std::string, std::shared_ptr<Site>> sites_;  // by kind and endpoint
    std::vector<std::thread> threads_;
    std::atomic<std::size_t> expedited_{0};
};

}  // namespace orch::workflow
