#include "monitoring/zabbix_feed.hpp"

#include "common/log.hpp"

namespace orch::monitoring {

ZabbixFeed::ZabbixFeed(http::Client& http, ZabbixOptions options, const Clock& clock)
    : http_(http), options_(std::move(options)), clock_(clock) {
    while (!options_.url.empty() && options_.url.back() == '/') {
        options_.url.pop_back();
    }
}

Result<ProviderSignals> ZabbixFeed::Fetch(const std::string& provider_id) {
    http::ClientRequest request;
    request.url = options_.url + "/monitoring/adapters/" + options_.adapter + "/zones/" + options_.zone + "/types/" +
                  options_.type + "/groups/" + http::UrlEncode(provider_id);
    request.timeout = options_.timeout;
    request.max_response_bytes = options_.max_response_bytes;
    request.headers.emplace_back("Accept", "application/json");
    auto response = http_.Send(request);
    if (!response) {
        return std::move(response).error();
    }
    if (response->status == 404) {
        return Error::NotFound("No metrics available for provider " + provider_id);
    }
    if (response->status != 200) {
        return Error::Unavailable(
            "monitoring answered HTTP " + std::to_string(response->status) + " for " + provider_id
        );
    }
    auto body = ParseJson(response->body);
    if (!body) {
        return std::move(body).error();
    }
    return ParseZabbixGroup(*body, provider_id);
}

std::shared_ptr<const Snapshot> ZabbixFeed::Collect(const std::vector<std::string>& provider_ids) {
    auto snapshot = std::make_shared<Snapshot>();
    const std::lock_guard lock(mutex_);
    const auto started = clock_.steady_now();
    for (const auto& id : provider_ids) {
        const auto now = clock_.now();
        if (const auto cached = cache_.find(id);
            cached != cache_.end() && now - cached->second.fetched_at < options_.ttl) {
            snapshot->providers.emplace(id, cached->second.signals);
            continue;
        }
        if (clock_.steady_now() - started > options_.deadline) {
            snapshot->notes.push_back("monitoring: no data for " + id + " (the monitoring deadline passed)");
            continue;
        }
        auto fetched = Fetch(id);
        if (!fetched) {
            ORCH_LOG_WARN("monitoring read failed", {{"provider", id}, {"error", fetched.error().message}});
            snapshot->notes.push_back("monitoring: " + fetched.error().message);
            continue;
        }
        cache_[id] = Entry{*fetched, now};
        snapshot->providers.emplace(id, std::move(fetched).value());
    }
    return snapshot;
}

}  // namespace orch::monitoring
