#pragma once

#include "cmdb/site_model.hpp"
#include "cmdb/sla.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace orch::cmdb {

/// One project of the group's SLAs, in one region: what the catalogue reads next
/// (`GET /projects/?user_group_uid=..&provider_uid=..&region_name=..`).
struct FedRegProjectRef {
    std::string provider_uid;
    std::string region;

    bool operator<(const FedRegProjectRef& other) const {
        return provider_uid != other.provider_uid ? provider_uid < other.provider_uid : region < other.region;
    }
    bool operator==(const FedRegProjectRef& other) const = default;
};

/// The user group as the Federation Registry gives it, mapped to the SLAM model placement uses.
struct FedRegGroup {
    std::string uid;
    SlaSet slas;
    std::vector<FedRegProjectRef> projects;  ///< sorted, each once
};

/// Maps a `GET /user_groups/?with_conn=true&name=..` reply (a bare array) to SLAs: the group
/// whose identity provider's `endpoint` equals `issuer` (any when `issuer` is empty). Each
/// compute quota that is not a usage record makes its service a compute preference (weight 1)
/// and SLA targets: a limit is the group's `total_limit`, a `per_user` quota each user's
/// `user_limit`, a `usage` record the site-reported use (`SlaTarget::reported_usage`).
/// `cores` → num_cpus, `ram` (MiB) → mem_size, `instances` → instances; -1 or null is unlimited.
/// One SLA entry per SLA `uid` with the services of all its projects; its `provider` is set only
/// when the SLA covers one provider (placement then reads it from the catalogue).
/// kNotFound when no group matches; kUnavailable for anonymous (public-schema) replies, which
/// carry no numbers (the registry did not accept the token).
Result<FedRegGroup> MapUserGroups(const Json& body, const std::string& group, const std::string& issuer);

/// Which compute services offer each flavor and image (by `uid`), from `GET /flavors/?with_conn=true`
/// and `GET /images/?with_conn=true`. A project's reply lists public items without their service
/// or region, and `region_name` does not filter them, so a multi-region project would offer every
/// region's public items in each region (reference §5.4); these lists say where each one is.
struct FedRegOffers {
    std::map<std::string, std::set<std::string>> services_by_item;

    /// True when the item is listed with other services only (an item not listed is kept).
    bool ElsewhereOnly(const std::string& item_uid, const std::string& service_uid) const;
};

/// Maps the two bare arrays of `GET /flavors/` and `GET /images/` (with_conn) to their services.
/// kUnavailable when either is not a list.
Result<FedRegOffers> MapOffers(const Json& flavors, const Json& images);

/// Maps a `GET /projects/?with_conn=true&...&region_name=<region>` reply (a bare array, element
/// 0 is the project) to its provider, holding the compute service of `region` with the group's
/// project as its only tenant: service id = the compute service `uid`, endpoint = the region's
/// Keystone (`identity_services[0]`), flavors and images deduplicated by `uid`, the region's
/// default networks as public/private network names. With `offers`, flavors and images that the
/// lists show on other compute services only are left out (null: every one is kept).
/// kNotFound when the reply has no project or no compute quota in that region, kInvalidArgument
/// when the region has no identity service.
Result<Provider> MapProject(
    const Json& body, const std::string& group, const std::string& region, const FedRegOffers* offers = nullptr
);

}  // namespace orch::cmdb
