#include "cmdb/site_model.hpp"

namespace orch::cmdb {

const Tenant* Service::TenantFor(const std::string& group) const {
    for (const auto& tenant : tenants) {
        if (tenant.user_group == group) {
            return &tenant;
        }
    }
    return nullptr;
}

std::string Service::StringProperty(const std::string& key, const std::string& fallback) const {
    const auto it = properties.find(key);
    if (it == properties.end() || !it->is_string()) {
        return fallback;
    }
    return it->get<std::string>();
}

bool Service::BoolProperty(const std::string& key, bool fallback) const {
    const auto it = properties.find(key);
    if (it == properties.end()) {
        return fallback;
    }
    if (it->is_boolean()) {
        return it->get<bool>();
    }
    if (it->is_string()) {
        const auto& text = it->get_ref<const std::string&>();
        return text == "true" || text == "True" || text == "TRUE";
    }
    return fallback;
}

std::int64_t Service::IntProperty(const std::string& key, std::int64_t fallback) const {
    const auto it = properties.find(key);
    if (it == properties.end() || !it->is_number()) {
        return fallback;
    }
    return it->get<std::int64_t>();
}

Catalogue::Catalogue(std::vector<std::shared_ptr<const Provider>> providers) : providers_(std::move(providers)) {
    for (const auto& provider : providers_) {
        by_provider_.emplace(provider->id, provider.get());
        for (const auto& service : provider->services) {
            services_.emplace(service.id, &service);
        }
    }
}

const Provider* Catalogue::FindProvider(std::string_view id) const {
    const auto it = by_provider_.find(id);
    return it == by_provider_.end() ? nullptr : it->second;
}

const Service* Catalogue::FindService(std::string_view id) const {
    const auto it = services_.find(id);
    return it == services_.end() ? nullptr : it->second;
}

}  // namespace orch::cmdb
