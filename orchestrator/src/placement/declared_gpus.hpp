#pragma once

#include "cmdb/site_model.hpp"

#include <string>

namespace orch::placement {

/// What the catalogue says about a container/batch service's GPUs (the Mesos master's values when
/// the framework itself does not say). Read from the service's properties, so it is worked out
/// once per catalogue version (SiteUniverse), not per placement.
struct DeclaredGpus {
    bool support = false;
    std::string vendor, model;
    int count = 0;
};

inline DeclaredGpus DeclaredGpusOf(const cmdb::Service& service, const cmdb::Service* parent) {
    auto text = [&](const char* key) {
        std::string value = service.StringProperty(key);
        return value.empty() && parent != nullptr ? parent->StringProperty(key) : value;
    };
    DeclaredGpus declared;
    declared.support = service.BoolProperty("gpu_support", false);
    declared.vendor = text("gpu_vendor");
    declared.model = text("gpu_model");
    declared.count =
        static_cast<int>(service.IntProperty("num_gpus", parent != nullptr ? parent->IntProperty("num_gpus", 0) : 0));
    return declared;
}

}  // namespace orch::placement
