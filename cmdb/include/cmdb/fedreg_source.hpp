#pragma once

#include "cmdb/catalogue_source.hpp"
#include "cmdb/fedreg_wire.hpp"
#include "cmdb/sla_cache.hpp"
#include "cmdb/sla_source.hpp"
#include "common/clock.hpp"
#include "common/http_client.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace orch::cmdb {

struct FedRegOptions {
    std::string url;                             ///< API base with its version, e.g. https://fedreg.example.org/api/v1
    std::chrono::milliseconds ttl{300'000};      ///< a group's SLAs and projects younger than this are not re-read
    std::chrono::milliseconds timeout{10'000};   ///< per HTTP call
    std::chrono::milliseconds deadline{30'000};  ///< one group's whole refresh; projects left over keep their old copy
    std::size_t max_response_bytes = 8u << 20;   ///< per reply
    std::size_t max_cached_groups = 1000;
    std::size_t max_projects = 64;  ///< (provider, region) projects read per group
};

/// The INFN Federation Registry (the 2025 catalogue that replaces CMDB v1 + SLAM), read with the
/// user's bearer token: `GET /user_groups/?with_conn=true&name=&idp_endpoint=&provider_status=active`
/// gives the group's SLAs and quotas, `GET /flavors/` and `GET /images/` (with_conn) say which
/// compute service offers each public item, then one `GET /projects/?with_conn=true&provider_uid=&
/// region_name=&user_group_uid=` per (provider, region) of its compute quotas gives that region's
/// Keystone, flavors, images and networks (fedreg_wire.hpp has the mapping). One object serves
/// both roles: ForCaller reads (and caches per issuer and group for `ttl`), Load hands out every
/// provider read so far, the same immutable objects until one is re-read (the catalogue version
/// placement caches on). When the registry cannot be reached the last good copy is used with a note.
class FedRegSource : public SlaSource, public CatalogueSource {
   public:
    FedRegSource(http::Client& http, FedRegOptions options, const Clock& clock);

    Result<SlaView> ForGroup(const std::string& group, const std::string& access_token) override;
    Result<SlaView> ForCaller(const std::string& group, const std::string& issuer, const std::string& access_token)
        override;
    Result<CatalogueView> Load(const std::vector<std::string>& provider_ids) override;
    std::string Url() const override { return options_.url; }

   private:
    // (provider uid, region, group) → that region's compute service with the group's project.
    using PieceKey = std::tuple<std::string, std::string, std::string>;

    Result<Json> Get(const std::string& path, const std::string& query, const std::string& access_token);
    Result<std::shared_ptr<const SlaSet>> Refresh(
        const std::string& group,
        const std::string& issuer,
        const std::string& access_token,
        std::vector<std::string>& notes
    );
    std::optional<FedRegOffers> ReadOffers(const std::string& access_token, std::vector<std::string>& notes);
    void ReadProjects(
        const FedRegGroup& group,
        const std::string& name,
        const std::string& access_token,
        std::vector<std::string>& notes
    );
    void Rebuild(const std::set<std::string>& provider_uids);

    http::Client& http_;
    FedRegOptions options_;
    const Clock& clock_;
    std::mutex mutex_;
    SlaCache<std::pair<std::string, std::string>> groups_;  ///< by (issuer, group)
    std::map<PieceKey, Provider> pieces_;
    std::map<std::string, std::shared_ptr<const Provider>> providers_;  ///< merged, by uid
    std::shared_ptr<const Catalogue> catalogue_ = std::make_shared<const Catalogue>();
};

}  // namespace orch::cmdb
