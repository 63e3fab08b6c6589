#pragma once

#include "cmdb/catalogue_source.hpp"
#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace orch::cmdb {

struct CmdbV1Options {
    std::string url;                            ///< base, e.g. https://cmdb.example.org/cmdb/v1
    std::chrono::milliseconds ttl{300'000};     ///< a provider younger than this is not re-read
    std::chrono::milliseconds timeout{10'000};  ///< per HTTP call
    std::size_t max_response_bytes = 8u << 20;
    std::size_t max_providers = 5000;  ///< bound on one Load
};

/// The INDIGO CMDB v1 REST API (the read side, anonymous GETs with include_docs=true):
/// provider → services → (IaaS services) tenants → images and flavors. Each provider is cached
/// for `ttl`; when the CMDB cannot be reached the last good copy is used and a note says so.
class CmdbV1Source : public CatalogueSource {
   public:
    /// `http` and `clock` (cache ages) must outlive the source.
    CmdbV1Source(http::Client& http, CmdbV1Options options, const Clock& clock);

    Result<CatalogueView> Load(const std::vector<std::string>& provider_ids) override;
    std::string Url() const override { return options_.url; }

   private:
    struct Entry {
        std::shared_ptr<const Provider> provider;
        std::chrono::system_clock::time_point fetched_at;
    };

    Result<std::shared_ptr<const Provider>> FetchProvider(const std::string& provider_id);
    Status FetchTenants(Service& service);
    Result<Json> GetJson(const std::string& path);

    http::Client& http_;
    CmdbV1Options options_;
    const Clock& clock_;
    std::mutex mutex_;
    std::map<std::string, Entry> cache_;
};

}  // namespace orch::cmdb
