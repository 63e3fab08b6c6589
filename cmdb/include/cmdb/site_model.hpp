#pragma once

#include "cmdb/service_kind.hpp"
#include "common/json.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace orch::cmdb {

/// A VM size offered to one project (CMDB `flavor`). Missing numbers are 0, as placement treats
/// an unknown capacity as "none".
struct Flavor {
    std::string id;         ///< CMDB document id
    std::string flavor_id;  ///< native (Nova) id
    std::string name;
    int vcpus = 0;
    std::uint64_t ram_mb = 0;
    std::uint64_t disk_gb = 0;
    int gpus = 0;
    std::string gpu_vendor, gpu_model;
    std::optional<std::uint64_t> gpu_memory_mb;  ///< ours (`gpu_memory`, MB); upstream has none
    bool infiniband = false;
};

/// A VM image offered to one project (CMDB `image`).
struct Image {
    std::string id;        ///< CMDB document id
    std::string image_id;  ///< native (Glance) id
    std::string name, description, architecture;
    std::string os_type, distribution, version;  ///< `type`, `distribution`, `version` on the wire
    std::string user_name;
    bool gpu_driver = false;
    std::string gpu_driver_version;
    bool cuda_support = false;
    std::string cuda_version, cudnn_version;
};

/// A project on one service, mapped to one user group (CMDB `tenant`).
struct Tenant {
    std::string id;           ///< CMDB document id
    std::string tenant_id;    ///< native project id
    std::string tenant_name;  ///< project name
    std::string service_id;
    std::string user_group;  ///< `iam_organisation` on the wire
    std::string public_network_name, private_network_name, private_network_cidr;
    std::string proxy_host, proxy_user;
    std::vector<Flavor> flavors;
    std::vector<Image> images;
};

struct IdentityProvider {
    std::string name;
    std::string issuer;
};

struct VolumeType {
    std::string name;
    std::string qos;
};

/// One service of a site (CMDB `service`) with its projects.
struct Service {
    std::string id;
    std::string provider_id;
    std::string service_type;
    ServiceKind kind = ServiceKind::kUnknown;
    std::string category;  ///< `type`: compute | storage | unknown
    std::string endpoint, hostname, sitename, region, microversion;
    bool is_public = false;
    bool iam_enabled = true;
    bool public_ip_assignable = false;
    std::string idp_protocol = "oidc";
    std::vector<IdentityProvider> supported_idps;
    std::string parent_id;  ///< Marathon/Chronos → their Mesos master
    std::vector<VolumeType> volume_types;
    Json properties = Json::object();  ///< type-specific switches (gpu_support, gpu_model, partition...)
    std::vector<std::string> worker_nodes_ip;
    std::vector<Tenant> tenants;

    /// The project of `group` on this service (the first, as the original does), or null.
    const Tenant* TenantFor(const std::string& group) const;
    /// A property as text/bool/int with a fallback (absent or of another kind → fallback).
    std::string StringProperty(const std::string& key, const std::string& fallback = "") const;
    bool BoolProperty(const std::string& key, bool fallback = false) const;
    std::int64_t IntProperty(const std::string& key, std::int64_t fallback = 0) const;
};

/// A site (CMDB `provider`).
struct Provider {
    std::string id;
    std::string name;
    std::string country;
    std::vector<Service> services;
};

/// An immutable set of providers with an index by service id. Shared between placements.
class Catalogue {
   public:
    Catalogue() = default;
    explicit Catalogue(std::vector<std::shared_ptr<const Provider>> providers);

    const std::vector<std::shared_ptr<const Provider>>& providers() const { return providers_; }
    const Provider* FindProvider(std::string_view id) const;
    const Service* FindService(std::string_view id) const;
    std::size_t service_count() const { return services_.size(); }

   private:
    // Transparent, so placement looks ids up by view without building a std::string each time.
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
    };
    template <typename T>
    using ById = std::unordered_map<std::string, T, Hash, std::equal_to<>>;

    std::vector<std::shared_ptr<const Provider>> providers_;
    ById<const Provider*> by_provider_;
    ById<const Service*> services_;
};

}  // namespace orch::cmdb
