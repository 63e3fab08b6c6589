#include "cmdb/slam_source.hpp"

#include "common/log.hpp"

namespace orch::cmdb {

SlamSource::SlamSource(http::Client& http, SlamOptions options, const Clock& clock)
    : http_(http), options_(std::move(options)), clock_(clock), cache_(options_.max_cached_groups) {
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

Result<SlaView> SlamSource::ForGroup(const std::string& group, const std::string& access_token) {
    const std::lock_guard lock(mutex_);
    const auto now = clock_.now();
    const auto* cached = cache_.Find(group);
    if (cached != nullptr && now - cached->fetched_at < options_.ttl) {
        return SlaView{cached->slas, {}};
    }
    auto fetched = Fetch(group, access_token);
    if (fetched) {
        cache_.Remember(group, {*fetched, now});
        return SlaView{std::move(fetched).value(), {}};
    }
    if (fetched.error().code == ErrorCode::kNotFound) {
        cache_.Forget(group);
        return std::move(fetched).error();
    }
    ORCH_LOG_WARN("SLAM read failed", {{"group", group}, {"error", fetched.error().message}});
    if (cached != nullptr) {
        const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(now - cached->fetched_at).count();
        return SlaView{
            cached->slas,
            {"SLAM unreachable (" + fetched.error().message + "); using the SLAs read " + std::to_string(minutes) +
             " min ago"}};
    }
    return Error::Unavailable("Error retrieving SLAs from SLAM: " + fetched.error().message);
}

}  // namespace orch::cmdb
