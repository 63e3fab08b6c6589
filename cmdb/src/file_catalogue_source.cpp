#include "cmdb/file_catalogue_source.hpp"

#include "cmdb/wire.hpp"
#include "common/log.hpp"
#include "yaml_json.hpp"

#include <map>
#include <system_error>

namespace orch::cmdb {
namespace {

constexpr std::size_t kMaxFileBytes = 256u << 20;

template <typename T>
Status ParseList(
    const Json& parent, std::string_view key, std::vector<T>& out, Result<T> (*parse)(const Json&, const std::string&)
) {
    const auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) {
        return Ok();
    }
    if (!it->is_array()) {
        return Error::InvalidArgument("'" + std::string(key) + "' must be a list");
    }
    for (const auto& item : *it) {
        const std::string id =
            item.is_object() && item.contains("id") && item["id"].is_string() ? item["id"].get<std::string>() : "";
        auto parsed = parse(item, id);
        if (!parsed) {
            return std::move(parsed).error();
        }
        out.push_back(std::move(parsed).value());
    }
    return Ok();
}

Result<std::vector<Tenant>> ParseTenants(const Json& root) {
    std::vector<Tenant> out;
    const auto it = root.find("tenants");
    if (it == root.end() || it->is_null()) {
        return out;
    }
    if (!it->is_object()) {
        return Error::InvalidArgument("'tenants' must be a mapping of tenant id to {tenant, images, flavors}");
    }
    for (const auto& [id, entry] : it->items()) {
        if (!entry.is_object() || !entry.contains("tenant")) {
            return Error::InvalidArgument("tenant '" + id + "': expected {tenant, images, flavors}");
        }
        auto tenant = ParseTenant(entry["tenant"], id);
        if (!tenant) {
            return std::move(tenant).error();
        }
        ORCH_RETURN_IF_ERROR(ParseList<Image>(entry, "images", tenant->images, &ParseImage));
        ORCH_RETURN_IF_ERROR(ParseList<Flavor>(entry, "flavors", tenant->flavors, &ParseFlavor));
        out.push_back(std::move(tenant).value());
    }
    return out;
}

Result<Service> ParseLocalService(const Json& data, const std::string& key_id, const std::string& provider_id) {
    std::string id = key_id;
    if (id.empty() && data.is_object() && data.contains("id") && data["id"].is_string()) {
        id = data["id"].get<std::string>();
    }
    if (id.empty()) {
        return Error::InvalidArgument("provider '" + provider_id + "': a service has no id");
    }
    auto service = ParseService(data, id);
    if (!service) {
        return service;
    }
    if (service->provider_id.empty()) {
        service->provider_id = provider_id;
    }
    if (service->endpoint.find("${") != std::string::npos) {
        return Error::InvalidArgument(
            "service '" + id + "': endpoint '" + service->endpoint +
            "' still holds a placeholder; substitute it before loading (the demo run script does)"
        );
    }
    return service;
}

Result<Provider> ParseLocalProvider(const Json& entry) {
    const std::string id =
        entry.is_object() && entry.contains("id") && entry["id"].is_string() ? entry["id"].get<std::string>() : "";
    if (id.empty()) {
        return Error::InvalidArgument("a provider has no 'id'");
    }
    auto provider = ParseProvider(entry, id);
    if (!provider) {
        return provider;
    }
    const auto services = entry.find("services");
    if (services == entry.end() || services->is_null()) {
        return provider;
    }
    if (!services->is_object() && !services->is_array()) {
        return Error::InvalidArgument("provider '" + id + "': 'services' must be a mapping or a list");
    }
    for (const auto& [key, data] : services->items()) {
        auto service = ParseLocalService(data, services->is_object() ? key : "", id);
        if (!service) {
            return std::move(service).error();
        }
        provider->services.push_back(std::move(service).value());
    }
    return provider;
}

}  // namespace

Result<Catalogue> ParseLocalCatalogue(const Json& root, const std::string& origin) {
    auto fail = [&](const Error& error) {
        return Error::InvalidArgument(origin + ": " + error.message);
    };
    if (!root.is_object() || !root.contains("providers") || !root["providers"].is_array()) {
        return Error::InvalidArgument(origin + ": a catalogue needs a 'providers' list");
    }
    auto tenants = ParseTenants(root);
    if (!tenants) {
        return fail(tenants.error());
    }
    std::vector<Provider> providers;
    std::map<std::string, Service*> services;
    for (const auto& entry : root["providers"]) {
        auto provider = ParseLocalProvider(entry);
        if (!provider) {
            return fail(provider.error());
        }
        providers.push_back(std::move(provider).value());
    }
    for (auto& provider : providers) {
        for (auto& service : provider.services) {
            if (!services.emplace(service.id, &service).second) {
                return Error::InvalidArgument(origin + ": service id '" + service.id + "' appears twice");
            }
        }
    }
    for (auto& tenant : *tenants) {
        const auto it = services.find(tenant.service_id);
        if (it == services.end()) {
            return Error::InvalidArgument(
                origin + ": tenant '" + tenant.id + "' belongs to unknown service '" + tenant.service_id + "'"
            );
        }
        it->second->tenants.push_back(std::move(tenant));
    }
    std::vector<std::shared_ptr<const Provider>> shared;
    shared.reserve(providers.size());
    for (auto& provider : providers) {
        shared.push_back(std::make_shared<const Provider>(std::move(provider)));
    }
    return Catalogue(std::move(shared));
}

Result<Catalogue> ParseLocalCatalogueText(const std::string& text, const std::string& origin) {
    auto root = YamlToJson(text, origin);
    if (!root) {
        return std::move(root).error();
    }
    return ParseLocalCatalogue(*root, origin);
}

FileCatalogueSource::FileCatalogueSource(std::string path, std::chrono::milliseconds recheck, const Clock& clock)
    : path_(std::move(path)), recheck_(recheck), clock_(clock) {}

Result<std::unique_ptr<FileCatalogueSource>> FileCatalogueSource::Open(
    const std::string& path, const Clock& clock, std::chrono::milliseconds recheck
) {
    std::unique_ptr<FileCatalogueSource> source(new FileCatalogueSource(path, recheck, clock));
    ORCH_RETURN_IF_ERROR(source->Reload());
    return source;
}

Status FileCatalogueSource::Reload() {
    std::error_code ec;
    const auto mtime = std::filesystem::last_write_time(path_, ec);
    auto text = ReadTextFile(path_, kMaxFileBytes);
    if (!text) {
        return Error::InvalidArgument("catalogue file: " + text.error().message);
    }
    auto catalogue = ParseLocalCatalogueText(*text, path_);
    if (!catalogue) {
        return std::move(catalogue).error();
    }
    current_ = std::make_shared<const Catalogue>(std::move(catalogue).value());
    loaded_mtime_ = ec ? std::filesystem::file_time_type{} : mtime;
    return Ok();
}

Result<CatalogueView> FileCatalogueSource::Load(const std::vector<std::string>&) {
    const std::lock_guard lock(mutex_);
    CatalogueView view;
    const auto now = clock_.now();
    if (now - checked_at_ >= recheck_) {
        checked_at_ = now;
        std::error_code ec;
        const auto mtime = std::filesystem::last_write_time(path_, ec);
        if (!ec && mtime != loaded_mtime_) {
            if (auto status = Reload(); !status) {
                last_error_ = status.error().message;
                ORCH_LOG_WARN("catalogue file reload failed; keeping the last good copy", {{"error", last_error_}});
            } else {
                last_error_.clear();
            }
        }
    }
    if (!last_error_.empty()) {
        view.notes.push_back("catalogue file has errors (" + last_error_ + "); using the last good copy");
    }
    view.catalogue = current_;
    return view;
}

}  // namespace orch::cmdb
