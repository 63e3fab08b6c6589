#include "cmdb/fedreg_wire.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace orch::cmdb {
namespace {

const Json& Member(const Json& object, std::string_view field) {
    static const Json kNull;
    if (!object.is_object()) {
        return kNull;
    }
    const auto it = object.find(field);
    return it == object.end() ? kNull : *it;
}

std::string Text(const Json& object, std::string_view field) {
    const Json& value = Member(object, field);
    return value.is_string() ? value.get<std::string>() : std::string();
}

bool Flag(const Json& object, std::string_view field) {
    const Json& value = Member(object, field);
    return value.is_boolean() && value.get<bool>();
}

// Quota and flavor numbers; null or absent is nullopt (FR sends nulls, never omits).
std::optional<double> Number(const Json& object, std::string_view field) {
    const Json& value = Member(object, field);
    if (!value.is_number()) {
        return std::nullopt;
    }
    return value.get<double>();
}

std::uint64_t Count(const Json& object, std::string_view field) {
    const auto value = Number(object, field);
    return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

const Json& Array(const Json& object, std::string_view field) {
    static const Json kEmpty = Json::array();
    const Json& value = Member(object, field);
    return value.is_array() ? value : kEmpty;
}

// An anonymous read gets the public schemas: no names, dates or numbers, so nothing can be placed
// on it. The reference's advice: treat it as the registry refusing the caller.
bool IsPublicSchema(const Json& object) {
    return Text(object, "schema_type").rfind("public", 0) == 0;
}

Error Anonymous() {
    return Error::Unavailable(
        "the Federation Registry answered with its public schema (no quotas or sizes): it did not accept the token"
    );
}

// The FR quota fields placement enforces, with the SLA target type quota.cpp reads.
struct QuotaField {
    const char* wire;
    const char* target;
};
constexpr QuotaField kComputeFields[] = {{"cores", "num_cpus"}, {"ram", "mem_size"}, {"instances", "instances"}};

SlaTarget& TargetOf(SlaService& service, const char* type) {
    for (auto& target : service.targets) {
        if (target.type == type) {
            return target;
        }
    }
    service.targets.push_back(SlaTarget{type, {}, {}, std::nullopt});
    return service.targets.back();
}

void AddQuota(SlaService& service, const Json& quota) {
    const bool usage = Flag(quota, "usage");
    const bool per_user = Flag(quota, "per_user");
    for (const auto& field : kComputeFields) {
        const auto value = Number(quota, field.wire);
        if (!value || *value < 0) {  // null or -1: unlimited (usage: unknown)
            continue;
        }
        SlaTarget& target = TargetOf(service, field.target);
        if (usage) {
            target.reported_usage = *value;
        } else if (per_user) {
            target.restrictions.user_guaranteed = target.restrictions.user_limit = *value;
        } else {
            target.restrictions.total_guaranteed = target.restrictions.total_limit = *value;
        }
    }
}

SlaService& ServiceOf(Sla& sla, const std::string& uid) {
    for (auto& service : sla.services) {
        if (service.service_id == uid) {
            return service;
        }
    }
    sla.services.push_back(SlaService{"compute", uid, {}});
    return sla.services.back();
}

const Json* FindGroup(const Json& body, const std::string& group, const std::string& issuer) {
    for (const auto& item : body) {
        if (Text(item, "name") != group) {
            continue;
        }
        if (issuer.empty() || Text(Member(item, "identity_provider"), "endpoint") == issuer) {
            return &item;
        }
    }
    return nullptr;
}

// One SLA of the group: its compute services (every project), preferences and project refs.
Status MapSla(const Json& json, FedRegGroup& out, std::set<std::string>& preferred) {
    if (IsPublicSchema(json)) {
        return Anonymous();
    }
    Sla sla;
    sla.id = Text(json, "uid");
    sla.customer = out.uid;
    sla.start_date = Text(json, "start_date");
    sla.end_date = Text(json, "end_date");
    std::set<std::string> providers;
    for (const auto& project : Array(json, "projects")) {
        const Json& provider = Member(project, "provider");
        const std::string provider_uid = Text(provider, "uid");
        const std::string status = Text(provider, "status");
        if (!status.empty() && status != "active") {
            continue;
        }
        for (const auto& quota : Array(project, "quotas")) {
            if (IsPublicSchema(quota)) {
                return Anonymous();
            }
            const Json& service = Member(quota, "service");
            if (Text(quota, "type") != "compute" || Text(service, "type") != "compute") {
                continue;  // network, storage quotas: nothing placement enforces
            }
            const std::string service_uid = Text(service, "uid");
            const std::string region = Text(Member(service, "region"), "name");
            if (service_uid.empty() || provider_uid.empty()) {
                continue;
            }
            AddQuota(ServiceOf(sla, service_uid), quota);
            providers.insert(provider_uid);
            // A usage or per-user record alone does not offer the service (the fork's rule).
            if (Flag(quota, "usage") || Flag(quota, "per_user")) {
                continue;
            }
            out.projects.push_back({provider_uid, region});
            if (preferred.insert(service_uid).second) {
                out.slas.preferences.front().priority.push_back(Priority{sla.id, service_uid, 1.0});
            }
        }
    }
    if (providers.size() == 1) {
        sla.provider = *providers.begin();
    }
    out.slas.slas.push_back(std::move(sla));
    return Ok();
}

Flavor MapFlavor(const Json& json) {
    Flavor flavor;
    flavor.id = Text(json, "uid");
    flavor.flavor_id = Text(json, "uuid");
    flavor.name = Text(json, "name");
    flavor.vcpus = static_cast<int>(Count(json, "vcpus"));
    flavor.ram_mb = Count(json, "ram");
    flavor.disk_gb = Count(json, "disk");
    flavor.gpus = static_cast<int>(Count(json, "gpus"));
    flavor.gpu_vendor = Text(json, "gpu_vendor");
    flavor.gpu_model = Text(json, "gpu_model");
    flavor.infiniband = Flag(json, "infiniband");
    return flavor;
}

Image MapImage(const Json& json) {
    Image image;
    image.id = Text(json, "uid");
    image.image_id = Text(json, "uuid");
    image.name = Text(json, "name");
    image.description = Text(json, "description");
    image.architecture = Text(json, "architecture");
    image.os_type = Text(json, "os_type");
    image.distribution = Text(json, "os_distro");
    image.version = Text(json, "os_version");
    image.gpu_driver = Flag(json, "gpu_driver");
    image.cuda_support = Flag(json, "cuda_support");
    return image;
}

// FR lists public items once per compute quota (no DISTINCT in its graph query): keep the first.
// Items the offers place on other compute services only belong to another region.
template <typename T>
std::vector<T> Distinct(
    const Json& list, T (*map)(const Json&), const FedRegOffers* offers, const std::string& service_uid
) {
    std::vector<T> out;
    std::set<std::string> seen;
    for (const auto& item : list) {
        const std::string uid = Text(item, "uid");
        if (offers != nullptr && offers->ElsewhereOnly(uid, service_uid)) {
            continue;
        }
        if (seen.insert(uid).second) {
            out.push_back(map(item));
        }
    }
    return out;
}

Status AddOffers(const Json& list, const char* what, FedRegOffers& out) {
    if (!list.is_array()) {
        return Error::Unavailable(std::string("the Federation Registry's ") + what + " answer is not a list");
    }
    for (const auto& item : list) {
        auto& services = out.services_by_item[Text(item, "uid")];
        for (const auto& service : Array(item, "services")) {
            services.insert(Text(service, "uid"));
        }
    }
    return Ok();
}

// The region's default networks: shared → public, not shared → private (with its proxy).
void MapNetworks(const Json& project, const std::string& region, Tenant& tenant) {
    for (const auto& network : Array(project, "networks")) {
        const Json& service = Member(network, "service");
        if (!Flag(network, "is_default") || Text(Member(service, "region"), "name") != region) {
            continue;
        }
        const Json& shared = Member(network, "is_shared");
        if (!shared.is_boolean() || shared.get<bool>()) {
            tenant.public_network_name = Text(network, "name");
        } else {
            tenant.private_network_name = Text(network, "name");
            tenant.proxy_host = Text(network, "proxy_host");
            tenant.proxy_user = Text(network, "proxy_user");
        }
    }
}

std::string HostOf(const std::string& url) {
    const auto scheme = url.find("://");
    const auto start = scheme == std::string::npos ? 0 : scheme + 3;
    const auto end = url.find_first_of(":/", start);
    return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The compute service of `region` from the project's (region-filtered) quotas.
const Json* ComputeServiceIn(const Json& project, const std::string& region) {
    for (const auto& quota : Array(project, "quotas")) {
        const Json& service = Member(quota, "service");
        if (Text(quota, "type") == "compute" && !Flag(quota, "usage") && !Flag(quota, "per_user") &&
            Text(Member(service, "region"), "name") == region) {
            return &service;
        }
    }
    return nullptr;
}

// Who may log in to the site: the auth methods of the project's provider at the group's IdP.
void MapIdentity(const Json& project, const std::string& provider_uid, Service& service) {
    const Json& idp = Member(Member(Member(project, "sla"), "user_group"), "identity_provider");
    for (const auto& provider : Array(idp, "providers")) {
        if (Text(provider, "uid") != provider_uid) {
            continue;
        }
        const Json& method = Member(provider, "relationship");
        service.supported_idps.push_back({Text(method, "idp_name"), Text(idp, "endpoint")});
        service.idp_protocol = Text(method, "protocol");
    }
}

}  // namespace

bool FedRegOffers::ElsewhereOnly(const std::string& item_uid, const std::string& service_uid) const {
    const auto it = services_by_item.find(item_uid);
    return it != services_by_item.end() && !it->second.empty() && it->second.count(service_uid) == 0;
}

Result<FedRegOffers> MapOffers(const Json& flavors, const Json& images) {
    FedRegOffers out;
    ORCH_RETURN_IF_ERROR(AddOffers(flavors, "flavors", out));
    ORCH_RETURN_IF_ERROR(AddOffers(images, "images", out));
    return out;
}

Result<FedRegGroup> MapUserGroups(const Json& body, const std::string& group, const std::string& issuer) {
    if (!body.is_array()) {
        return Error::Unavailable("the Federation Registry's user_groups answer is not a list");
    }
    const Json* found = FindGroup(body, group, issuer);
    if (found == nullptr) {
        return Error::NotFound("Error fetching SLA for customer " + group + " from the Federation Registry.");
    }
    if (IsPublicSchema(*found)) {
        return Anonymous();
    }
    FedRegGroup out;
    out.uid = Text(*found, "uid");
    out.slas.customer = group;
    out.slas.preferences.push_back(Preference{"compute", {}});
    std::set<std::string> preferred;
    for (const auto& sla : Array(*found, "slas")) {
        ORCH_RETURN_IF_ERROR(MapSla(sla, out, preferred));
    }
    std::sort(out.projects.begin(), out.projects.end());
    out.projects.erase(std::unique(out.projects.begin(), out.projects.end()), out.projects.end());
    out.slas.Reindex();
    return out;
}

Result<Provider> MapProject(
    const Json& body, const std::string& group, const std::string& region, const FedRegOffers* offers
) {
    if (!body.is_array() || body.empty()) {
        return Error::NotFound("the Federation Registry has no project of group " + group + " in region " + region);
    }
    const Json& project = body.front();
    if (IsPublicSchema(project)) {
        return Anonymous();
    }
    const Json& provider_json = Member(project, "provider");
    Provider provider;
    provider.id = Text(provider_json, "uid");
    provider.name = Text(provider_json, "name");
    const Json* compute = ComputeServiceIn(project, region);
    if (compute == nullptr) {
        return Error::NotFound(
            "the Federation Registry lists no compute quota of group " + group + " on " + provider.name +
            " in region " + region
        );
    }
    std::string keystone;
    for (const auto& item : Array(provider_json, "regions")) {
        if (Text(item, "name") == region && !Array(item, "identity_services").empty()) {
            keystone = Text(Array(item, "identity_services").front(), "endpoint");
        }
    }
    if (keystone.empty()) {
        return Error::InvalidArgument(
            "the Federation Registry lists no identity service for region " + region + " of " + provider.name
        );
    }
    Service service;
    service.id = Text(*compute, "uid");
    service.provider_id = provider.id;
    service.service_type = Text(*compute, "name");
    service.kind = ParseServiceKind(service.service_type);
    service.category = "compute";
    service.endpoint = keystone;
    service.hostname = HostOf(keystone);
    service.sitename = provider.name;
    service.region = region;
    service.is_public = Flag(provider_json, "is_public");
    service.public_ip_assignable = true;  // as the fork: FR has no such switch
    MapIdentity(project, provider.id, service);
    Tenant tenant;
    tenant.id = Text(project, "uid");
    tenant.tenant_id = Text(project, "uuid");
    tenant.tenant_name = Text(project, "name");
    tenant.service_id = service.id;
    tenant.user_group = group;
    tenant.flavors = Distinct<Flavor>(Array(project, "flavors"), &MapFlavor, offers, service.id);
    tenant.images = Distinct<Image>(Array(project, "images"), &MapImage, offers, service.id);
    MapNetworks(project, region, tenant);
    service.tenants.push_back(std::move(tenant));
    provider.services.push_back(std::move(service));
    return provider;
}

}  // namespace orch::cmdb
