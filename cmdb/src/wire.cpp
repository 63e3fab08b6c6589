#include "cmdb/wire.hpp"

#include <cmath>

namespace orch::cmdb {
namespace {

Error FieldError(std::string_view what, const std::string& id, std::string_view field, std::string_view problem) {
    return Error::InvalidArgument(
        std::string(what) + " '" + id + "': field '" + std::string(field) + "' " + std::string(problem)
    );
}

// Text fields: CMDB data has numbers where strings are expected (flavor ids "7" vs 7); both are text.
std::string Text(const Json& data, std::string_view field) {
    const auto it = data.find(field);
    if (it == data.end() || it->is_null()) {
        return {};
    }
    if (it->is_string()) {
        return it->get<std::string>();
    }
    if (it->is_number_integer()) {
        return std::to_string(it->get<std::int64_t>());
    }
    if (it->is_number()) {
        return it->dump();
    }
    if (it->is_boolean()) {
        return it->get<bool>() ? "true" : "false";
    }
    return {};
}

Result<bool> Flag(
    const Json& data, std::string_view field, bool fallback, std::string_view what, const std::string& id
) {
    auto value = ReadLenientBool(data, field);
    if (!value) {
        return FieldError(what, id, field, "must be a boolean");
    }
    return value->value_or(fallback);
}

// Numbers: integers, floats (RAM is sometimes 2048.0) or numeric strings; absent/null → 0.
Result<double> Number(const Json& data, std::string_view field, std::string_view what, const std::string& id) {
    const auto it = data.find(field);
    if (it == data.end() || it->is_null()) {
        return 0.0;
    }
    if (it->is_number()) {
        const double value = it->get<double>();
        if (!std::isfinite(value) || value < 0) {
            return FieldError(what, id, field, "must be a non-negative number");
        }
        return value;
    }
    if (it->is_string()) {
        const auto& text = it->get_ref<const std::string&>();
        if (text.empty()) {
            return 0.0;
        }
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (used == text.size() && std::isfinite(value) && value >= 0) {
                return value;
            }
        } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): reported just below
        }
    }
    return FieldError(what, id, field, "must be a non-negative number");
}

std::vector<std::string> TextList(const Json& data, std::string_view field) {
    std::vector<std::string> out;
    const auto it = data.find(field);
    if (it == data.end() || !it->is_array()) {
        return out;
    }
    for (const auto& item : *it) {
        if (item.is_string()) {
            out.push_back(item.get<std::string>());
        }
    }
    return out;
}

Status RequireObject(const Json& data, std::string_view what, const std::string& id) {
    if (!data.is_object()) {
        return Error::InvalidArgument(std::string(what) + " '" + id + "': expected a JSON object");
    }
    return Ok();
}

// supported_idps was a list of issuer strings (2020) before it became {name, issuer} objects.
std::vector<IdentityProvider> IdentityProviders(const Json& data) {
    std::vector<IdentityProvider> out;
    const auto it = data.find("supported_idps");
    if (it == data.end() || !it->is_array()) {
        return out;
    }
    for (const auto& item : *it) {
        if (item.is_string()) {
            out.push_back({"", item.get<std::string>()});
        } else if (item.is_object()) {
            out.push_back({Text(item, "name"), Text(item, "issuer")});
        }
    }
    return out;
}

std::vector<VolumeType> VolumeTypes(const Json& data) {
    std::vector<VolumeType> out;
    const auto it = data.find("volume_types");
    if (it == data.end() || !it->is_array()) {
        return out;
    }
    for (const auto& item : *it) {
        if (item.is_object()) {
            out.push_back({Text(item, "name"), Text(item, "qos")});
        }
    }
    return out;
}

}  // namespace

Result<Flavor> ParseFlavor(const Json& data, const std::string& doc_id) {
    constexpr std::string_view kWhat = "flavor";
    ORCH_RETURN_IF_ERROR(RequireObject(data, kWhat, doc_id));
    Flavor flavor;
    flavor.id = doc_id;
    flavor.flavor_id = Text(data, "flavor_id");
    flavor.name = Text(data, "flavor_name");
    auto vcpus = Number(data, "num_vcpus", kWhat, doc_id);
    auto ram = Number(data, "ram", kWhat, doc_id);
    auto disk = Number(data, "disk", kWhat, doc_id);
    auto gpus = Number(data, "num_gpus", kWhat, doc_id);
    auto gpu_memory = Number(data, "gpu_memory", kWhat, doc_id);
    auto infiniband = Flag(data, "infiniband_support", false, kWhat, doc_id);
    for (const auto* failed : {&vcpus, &ram, &disk, &gpus, &gpu_memory}) {
        if (!*failed) {
            return failed->error();
        }
    }
    if (!infiniband) {
        return infiniband.error();
    }
    flavor.vcpus = static_cast<int>(*vcpus);
    flavor.ram_mb = static_cast<std::uint64_t>(*ram);
    flavor.disk_gb = static_cast<std::uint64_t>(*disk);
    flavor.gpus = static_cast<int>(*gpus);
    flavor.gpu_vendor = Text(data, "gpu_vendor");
    flavor.gpu_model = Text(data, "gpu_model");
    if (*gpu_memory > 0) {
        flavor.gpu_memory_mb = static_cast<std::uint64_t>(*gpu_memory);
    }
    flavor.infiniband = *infiniband;
    return flavor;
}

Result<Image> ParseImage(const Json& data, const std::string& doc_id) {
    constexpr std::string_view kWhat = "image";
    ORCH_RETURN_IF_ERROR(RequireObject(data, kWhat, doc_id));
    Image image;
    image.id = doc_id;
    image.image_id = Text(data, "image_id");
    image.name = Text(data, "image_name");
    image.description = Text(data, "image_description");
    image.architecture = Text(data, "architecture");
    image.os_type = Text(data, "type");
    image.distribution = Text(data, "distribution");
    image.version = Text(data, "version");
    image.user_name = Text(data, "user_name");
    auto driver = Flag(data, "gpu_driver", false, kWhat, doc_id);
    if (!driver) {
        return driver.error();
    }
    auto cuda = Flag(data, "cuda_support", false, kWhat, doc_id);
    if (!cuda) {
        return cuda.error();
    }
    image.gpu_driver = *driver;
    image.gpu_driver_version = Text(data, "gpu_driver_version");
    image.cuda_support = *cuda;
    image.cuda_version = Text(data, "cuda_version");
    image.cudnn_version = Text(data, "cuDNN_version");
    return image;
}

Result<Tenant> ParseTenant(const Json& data, const std::string& doc_id) {
    ORCH_RETURN_IF_ERROR(RequireObject(data, "tenant", doc_id));
    Tenant tenant;
    tenant.id = doc_id;
    tenant.tenant_id = Text(data, "tenant_id");
    tenant.tenant_name = Text(data, "tenant_name");
    tenant.service_id = Text(data, "service");
    tenant.user_group = Text(data, "iam_organisation");
    if (tenant.user_group.empty()) {
        tenant.user_group = Text(data, "user_group");  // the 2021 rename, accepted too
    }
    tenant.public_network_name = Text(data, "public_network_name");
    tenant.private_network_name = Text(data, "private_network_name");
    tenant.private_network_cidr = Text(data, "private_network_cidr");
    tenant.proxy_host = Text(data, "private_network_proxy_host");
    tenant.proxy_user = Text(data, "private_network_proxy_user");
    return tenant;
}

Result<Service> ParseService(const Json& data, const std::string& doc_id) {
    constexpr std::string_view kWhat = "service";
    ORCH_RETURN_IF_ERROR(RequireObject(data, kWhat, doc_id));
    Service service;
    service.id = doc_id;
    service.service_type = Text(data, "service_type");
    if (service.service_type.empty()) {
        return FieldError(kWhat, doc_id, "service_type", "is required");
    }
    service.kind = ParseServiceKind(service.service_type);
    service.provider_id = Text(data, "provider_id");
    service.endpoint = Text(data, "endpoint");
    service.hostname = Text(data, "hostname");
    service.sitename = Text(data, "sitename");
    service.region = Text(data, "region");
    service.microversion = Text(data, "microversion");
    const std::string category = Text(data, "type");
    service.category = (category == "compute" || category == "storage") ? category : "unknown";
    auto is_public = Flag(data, "is_public_service", false, kWhat, doc_id);
    auto iam = Flag(data, "iam_enabled", true, kWhat, doc_id);
    auto public_ip = Flag(data, "public_ip_assignable", false, kWhat, doc_id);
    for (const auto* flag : {&is_public, &iam, &public_ip}) {
        if (!*flag) {
            return flag->error();
        }
    }
    service.is_public = *is_public;
    service.iam_enabled = *iam;
    service.public_ip_assignable = *public_ip;
    const std::string protocol = Text(data, "idp_protocol");
    service.idp_protocol = protocol.empty() ? "oidc" : protocol;
    service.supported_idps = IdentityProviders(data);
    service.parent_id = Text(data, "service_parent_id");
    service.volume_types = VolumeTypes(data);
    if (const auto it = data.find("properties"); it != data.end() && it->is_object()) {
        service.properties = *it;
    }
    service.worker_nodes_ip = TextList(data, "worker_nodes_ip");
    return service;
}

Result<Provider> ParseProvider(const Json& data, const std::string& doc_id) {
    ORCH_RETURN_IF_ERROR(RequireObject(data, "provider", doc_id));
    Provider provider;
    provider.id = doc_id;
    provider.name = Text(data, "name");
    if (provider.name.empty()) {
        provider.name = doc_id;
    }
    provider.country = Text(data, "country");
    return provider;
}

Result<std::pair<std::string, Json>> UnwrapDocument(const Json& document, std::string_view what) {
    if (!document.is_object()) {
        return Error::InvalidArgument(std::string(what) + ": expected a CMDB document (JSON object)");
    }
    std::string id = Text(document, "_id");
    const auto data = document.find("data");
    if (data == document.end() || !data->is_object()) {
        return Error::InvalidArgument(std::string(what) + " '" + id + "': the document has no 'data' object");
    }
    if (id.empty()) {
        id = Text(*data, "id");
    }
    if (id.empty()) {
        return Error::InvalidArgument(std::string(what) + ": the document has no '_id'");
    }
    return std::make_pair(std::move(id), *data);
}

Result<std::vector<std::pair<std::string, Json>>> UnwrapRows(const Json& body, std::string_view what) {
    std::vector<std::pair<std::string, Json>> out;
    if (!body.is_object()) {
        return Error::InvalidArgument(std::string(what) + ": expected a CMDB row list (JSON object)");
    }
    const auto rows = body.find("rows");
    if (rows == body.end() || rows->is_null()) {
        return out;
    }
    if (!rows->is_array()) {
        return Error::InvalidArgument(std::string(what) + ": 'rows' must be a list");
    }
    for (const auto& row : *rows) {
        const auto doc = row.is_object() ? row.find("doc") : row.end();
        if (!row.is_object() || doc == row.end()) {
            return Error::InvalidArgument(std::string(what) + ": a row has no 'doc' (ask with include_docs=true)");
        }
        auto unwrapped = UnwrapDocument(*doc, what);
        if (!unwrapped) {
            return std::move(unwrapped).error();
        }
        out.push_back(std::move(unwrapped).value());
    }
    return out;
}

}  // namespace orch::cmdb
