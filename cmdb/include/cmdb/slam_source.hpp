#pragma once

#include "cmdb/catalogue_source.hpp"
#include "cmdb/sla_cache.hpp"
#include "cmdb/sla_source.hpp"
#include "common/clock.hpp"
#include "common/http_client.hpp"

#include <chrono>
#include <mutex>
#include <string>

namespace orch::cmdb {

struct SlamOptions {
    std::string url;  ///< base that `/preferences/{group}` is appended to
    std::chrono::milliseconds ttl{300'000};
    std::chrono::milliseconds timeout{10'000};
    std::size_t max_response_bytes = 8u << 20;
    std::size_t max_cached_groups = 1000;
};

/// The SLAM REST client: GET {url}/preferences/{group} with the user's bearer token. Answers are
/// cached per group for `ttl`; when SLAM cannot be reached the last good answer is used, with a note.
class SlamSource : public SlaSource {
   public:
    /// `http` and `clock` (cache ages) must outlive the source.
    SlamSource(http::Client& http, SlamOptions options, const Clock& clock);

    Result<SlaView> ForGroup(const std::string& group, const std::string& access_token) override;
    std::string Url() const override { return options_.url; }

   private:
    Result<std::shared_ptr<const SlaSet>> Fetch(const std::string& group, const std::string& access_token);

    http::Client& http_;
    SlamOptions options_;
    const Clock& clock_;
    std::mutex mutex_;
    SlaCache<std::string> cache_;  ///< by group
};

}  // namespace orch::cmdb
