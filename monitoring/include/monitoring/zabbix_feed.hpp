#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"
#include "common/result.hpp"
#include "monitoring/feed.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace orch::monitoring {

/// Parses one Zabbix-wrapper group answer ({"meta", "result": {"groups": [...]}}). Only
/// groups[0] is used, as the original does. No groups → kNotFound "No metrics available for provider X".
Result<ProviderSignals> ParseZabbixGroup(const Json& body, const std::string& provider_id);

struct ZabbixOptions {
    std::string url;  ///< base; /monitoring/adapters/<adapter>/zones/<zone>/types/<type>/groups/<id> is appended
    std::string adapter = "zabbix";
    std::string zone = "indigo";
    std::string type = "infrastructure";
    std::chrono::milliseconds timeout{5'000};    ///< per call
    std::chrono::milliseconds deadline{15'000};  ///< whole Collect; providers left over are skipped
    std::chrono::milliseconds ttl{60'000};       ///< a provider's answer is reused this long
    std::size_t max_response_bytes = 4u << 20;
};

/// The INDIGO monitoring pillar (Zabbix wrapper): one GET per provider, no authentication.
class ZabbixFeed : public Feed {
   public:
    /// `http` and `clock` (cache ages, the deadline) must outlive the feed.
    ZabbixFeed(http::Client& http, ZabbixOptions options, const Clock& clock);

    std::shared_ptr<const Snapshot> Collect(const std::vector<std::string>& provider_ids) override;
    std::string Url() const override { return options_.url; }
    std::string Kind() const override { return "indigo"; }

   private:
    struct Entry {
        ProviderSignals signals;
        std::chrono::system_clock::time_point fetched_at;
    };
    Result<ProviderSignals> Fetch(const std::string& provider_id);

    http::Client& http_;
    ZabbixOptions options_;
    const Clock& clock_;
    std::mutex mutex_;
    std::map<std::string, Entry> cache_;
};

}  // namespace orch::monitoring
