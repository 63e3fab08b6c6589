#include "orchestrator/workflow/site_watcher.hpp"

#include "common/http_stream.hpp"
#include "common/log.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/site_events.hpp"

#include <algorithm>

namespace orch::workflow {

// One watched site: the target to connect with (the latest credentials a poll resolved) and
// the resources of its deployments in progress (handle physical id → deployment, until when).
struct SiteWatcher::Site {
    connectors::SiteTarget target;
    struct Interest {
        std::string deployment_id;
        std::chrono::steady_clock::time_point until;
    };
    std::map<std::string, Interest> interests;
};

namespace {

constexpr std::chrono::milliseconds kFirstBackoff{500};

std::string SiteKey(const connectors::SiteTarget& target) {
    return std::string(connectors::TargetKindName(target.kind)) + " " + target.endpoint;
}

StreamEnd EndOf(bool ended_well, int status, bool heard) {
    if (!ended_well && status == 0) {
        return StreamEnd::kBroken;
    }
    if (status != 200) {
        return StreamEnd::kRefused;
    }
    if (!ended_well) {
        return StreamEnd::kBroken;  // answered, then the connection broke
    }
    return heard ? StreamEnd::kClosed : StreamEnd::kSilent;
}

std::string Endpoint(const std::string& endpoint) {
    return !endpoint.empty() && endpoint.back() == '/' ? endpoint.substr(0, endpoint.size() - 1) : endpoint;
}

}  // namespace

std::string_view StreamEndName(StreamEnd end) {
    switch (end) {
        case StreamEnd::kClosed:
            return "closed";
        case StreamEnd::kSilent:
            return "silent";
        case StreamEnd::kRefused:
            return "refused";
        case StreamEnd::kBroken:
            return "broken";
    }
    return "broken";
}

SiteWatcher::SiteWatcher(
    WorkflowStore& store,
    connectors::SiteClientFactory& clients,
    const Clock& clock,
    SiteWatchOptions options,
    std::function<void()> wake
)
    : store_(store), clients_(clients), clock_(clock), options_(options), wake_(std::move(wake)) {}

SiteWatcher::~SiteWatcher() {
    Stop();
}

void SiteWatcher::Stop() {
    std::vector<std::thread> threads;
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
        threads.swap(threads_);
    }
    stopped_.notify_all();
    for (auto& t : threads) {
        t.join();
    }
}

void SiteWatcher::Watch(const connectors::Handle& handle) {
    const auto paths = connectors::SiteWatchPaths(handle.target.kind);
    if (!options_.enabled || paths.empty() || handle.physical_id.empty()) {
        return;
    }
    const std::lock_guard lock(mutex_);
    if (stop_) {
        return;
    }
    const std::string key = SiteKey(handle.target);
    auto it = sites_.find(key);
    if (it == sites_.end()) {
        if (sites_.size() >= options_.max_sites) {
            return;  // bounded: this site's deployments rely on their polls
        }
        it = sites_.emplace(key, std::make_shared<Site>()).first;
        for (const auto& path : paths) {
            threads_.emplace_back([this, site = it->second, path] { Subscribe(site, path); });
        }
        ORCH_LOG_INFO("watching a site for changes", {{"site", handle.target.site_id}, {"streams", paths.size()}});
    }
    Site& site = *it->second;
    site.target = handle.target;
    const auto now = clock_.steady_now();
    site.interests[handle.physical_id] = Site::Interest{handle.deployment_id, now + options_.interest_ttl};
    std::erase_if(site.interests, [&](const auto& entry) { return entry.second.until < now; });
    stopped_.notify_all();  // an idle subscriber of this site opens its stream now
}

bool SiteWatcher::Wait(std::chrono::milliseconds pause) {
    std::unique_lock lock(mutex_);
    return !stopped_.wait_for(lock, pause, [this] { return stop_; });
}

void SiteWatcher::Changed(Site& site, connectors::TargetKind kind, const std::vector<std::string>& resources) {
    std::vector<std::string> deployments;
    {
        const std::lock_guard lock(mutex_);
        const auto now = clock_.steady_now();
        for (const auto& resource : resources) {
            const auto it = site.interests.find(resource);
            if (it != site.interests.end() && it->second.until >= now) {
                deployments.push_back(it->second.deployment_id);
            }
        }
    }
    std::size_t moved = 0;
    for (const auto& id : deployments) {
        auto polled = store_.PollNow(id);
        if (!polled) {
            ORCH_LOG_WARN("cannot make a poll due", {{"deployment", id}, {"error", polled.error().message}});
            if (options_.observer != nullptr) {
                options_.observer->PollNowFailed(kind);
            }
        } else if (*polled) {
            ++moved;
            expedited_.fetch_add(1);
        }
    }
    if (options_.observer != nullptr) {
        options_.observer->Notified(kind, moved);
    }
    if (moved > 0 && wake_) {
        wake_();
    }
}

void SiteWatcher::Report(connectors::TargetKind kind, bool opened, StreamEnd end, std::size_t skipped) const {
    if (options_.observer == nullptr) {
        return;
    }
    if (opened) {
        options_.observer->StreamClosed(kind);
    }
    options_.observer->StreamEnded(kind, end);
    if (skipped > 0) {
        options_.observer->Skipped(kind, skipped);
    }
}

void SiteWatcher::Subscribe(const std::shared_ptr<Site>& site, const std::string& path) {
    auto backoff = kFirstBackoff;
    std::string resume;  // Kubernetes: the last resourceVersion seen
    while (true) {
        connectors::SiteTarget target;
        {
            // Nobody waits on this site: no connection held, and no polling either — Watch wakes
            // this thread when a deployment becomes interesting, Stop when the process ends.
            std::unique_lock lock(mutex_);
            stopped_.wait(lock, [&] {
                const auto now = clock_.steady_now();
                return stop_ || std::any_of(site->interests.begin(), site->interests.end(), [&](const auto& entry) {
                           return entry.second.until >= now;
                       });
            });
            if (stop_) {
                return;
            }
            target = site->target;
        }
        const bool kube = target.kind == connectors::TargetKind::kKubernetes;
        http::ClientRequest request;
        request.url = Endpoint(target.endpoint) + path + (kube && !resume.empty() ? "&resourceVersion=" + resume : "");
        request.headers = connectors::AuthHeaders(target.credentials);
        request.headers.emplace_back("Accept", kube ? "application/json" : "text/event-stream");
        request.timeout = options_.stream_life;
        request.max_response_bytes = std::size_t{1} << 30;
        int status = 0;
        bool expired = false;  // Kubernetes: the version resumed from is gone; start afresh
        bool heard = false;
        connectors::SseParser sse(options_.max_line, options_.max_line);
        connectors::LineSplitter lines(options_.max_line);
        http::StreamSink sink;
        bool opened = false;
        sink.on_status = [&](int code, const http::Headers&) {
            status = code;
            opened = code == 200;
            if (opened && options_.observer != nullptr) {
                options_.observer->StreamOpened(target.kind);
            }
            return opened;
        };
        sink.on_bytes = [&](std::string_view bytes) {
            if (kube) {
                lines.Feed(bytes, [&](std::string_view line) {
                    if (auto change = connectors::KubernetesWatchChange(line)) {
                        expired = expired || change->expired;
                        if (!change->resource_version.empty()) {
                            resume = change->resource_version;
                        }
                        Changed(*site, target.kind, change->resources);
                    }
                });
            } else {
                sse.Feed(bytes, [&](const connectors::SseEvent& event) {
                    Changed(*site, target.kind, connectors::MarathonEventChange(event).resources);
                });
            }
            heard = true;
            return !expired;
        };
        sink.cancelled = [this] {
            const std::lock_guard lock(mutex_);
            return stop_;
        };
        Status ended = Ok();
        auto client = clients_.ClientFor(target);
        if (const auto* shared = std::get_if<0>(&client)) {
            http::StreamingClient* streaming = http::AsStreaming(**shared);
            if (streaming == nullptr) {
                return;  // this client cannot stream (tests' fakes): polls only
            }
            ended = streaming->StreamBody(request, sink);
        } else {
            ended = Error::Unavailable(std::get<connectors::Failure>(client).message);
        }
        if (status == 410 || expired) {
            resume.clear();
        }
        Report(target.kind, opened, EndOf(static_cast<bool>(ended), status, heard), sse.dropped() + lines.dropped());
        if (ended && status == 200 && heard) {
            backoff = kFirstBackoff;  // a stream that worked: reopen at once
            continue;
        }
        if (!ended || status != 200) {
            ORCH_LOG_INFO(
                "site change stream interrupted",
                {{"site", target.site_id},
                 {"status", status},
                 {"error", ended ? std::string() : ended.error().message},
                 {"retry_ms", backoff.count()}}
            );
        }
        // Refused, broken, or closed without a word: back off, so a bad site is not hammered.
        if (!Wait(backoff)) {
            return;
        }
        backoff = std::min(backoff * 2, options_.max_backoff);
    }
}

}  // namespace orch::workflow
