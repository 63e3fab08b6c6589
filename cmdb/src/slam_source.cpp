#include "cmdb/slam_source.hpp"

#include "common/log.hpp"

namespace orch::cmdb {

SlamSource::SlamSource(http::Client& http, SlamOptions options, const Clock& clock)
    : http_(http), options_(std::move(options)), clock_(clock) {
    while (!options_.url.empty() && options_.url.back() == '/') {
        options_.url.pop_back();
    }
}

Result<std::shared_ptr<const SlaSet>> SlamSource::Fetch(const std::string& group, const std::string& access_token) {
    http::ClientRequest request;
    request.url = options_.url + "/preferences/" + http::UrlEncode(group);
    request.timeout = options_.timeout;
    request.max_response_bytes = options_.max_response_bytes;
    request.headers.emplace_back("Accept", "application/json");
    if (!access_token.empty()) {
        request.headers.emplace_back("Authorization", "Bearer " + access_token);
    }
    auto response = http_.Send(request);
    if (!response) {
        return Error::Unavailable(response.error().message);
    }
    if (response->status == 404) {
        return Error::NotFound("Error fetching SLA for customer " + group + " from SLAM.");
    }
    if (response->status != 200) {
        return Error::Unavailable("SLAM answered HTTP " + std::to_string(response->status));
    }
    auto body = ParseJson(response->body);
    if (!body) {
        return Error::Unavailable("SLAM answer is not JSON: " + body.error().message);
    }
    auto slas = ParseSlamPreferences(*body, group);
    if (!slas) {
        return Error::Unavailable(slas.error().message);
    }
    return std::make_shared<const SlaSet>(std::move(slas).value());
}

void SlamSource::Remember(const std::string& group, Entry entry) {
    if (cache_.size() >= options_.max_cached_groups && cache_.count(group) == 0) {
        auto oldest = cache_.begin();
        for (auto it = cache_.begin(); it != cache_.end(); ++it) {
            if (it->second.fetched_at < oldest->second.fetched_at) {
                oldest = it;
            }
        }
        cache_.erase(oldest);
    }
    cache_[group] = std::move(entry);
}

Result<SlaView> SlamSource::ForGroup(const std::string& group, const std::string& access_token) {
    const std::lock_guard lock(mutex_);
    const auto now = clock_.now();
    const auto cached = cache_.find(group);
    if (cached != cache_.end() && now - cached->second.fetched_at < options_.ttl) {
        return SlaView{cached->second.slas, {}};
    }
    auto fetched = Fetch(group, access_token);
    if (fetched) {
        Remember(group, Entry{*fetched, now});
        return SlaView{std::move(fetched).value(), {}};
    }
    if (fetched.error().code == ErrorCode::kNotFound) {
        cache_.erase(group);
        return std::move(fetched).error();
    }
    ORCH_LOG_WARN("SLAM read failed", {{"group", group}, {"error", fetched.error().message}});
    if (cached != cache_.end()) {
        const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(now - cached->second.fetched_at).count();
        return SlaView{
            cached->second.slas,
            {"SLAM unreachable (" + fetched.error().message + "); using the SLAs read " + std::to_string(minutes) +
             " min ago"}};
    }
    return Error::Unavailable("Error retrieving SLAs from SLAM: " + fetched.error().message);
}

}  // namespace orch::cmdb
