#pragma once

#include <common/json.hpp>

#include <sim/schema_store.hpp>
#include <sim/site_sim.hpp>

#include <memory>
#include <stdexcept>
#include <string>

namespace orch::sim::test {

/// The embedded schemas, loaded once per test binary.
inline std::shared_ptr<const SchemaSet> Schemas() {
    static const auto kSchemas = [] {
        auto loaded = LoadEmbeddedSchemas();
        if (!loaded) {
            throw std::runtime_error(loaded.error().message);
        }
        return *loaded;
    }();
    return kSchemas;
}

/// A site whose clock stands still unless a test advances it.
inline std::unique_ptr<SiteSim> StillSite(SimConfig config = SimConfig::Default()) {
    config.speed = 0;
    auto site = SiteSim::Create(std::move(config), Schemas());
    if (!site) {
        throw std::runtime_error(site.error().message);
    }
    return std::move(*site);
}

inline SimResponse Call(
    SiteSim& site, SimApi api, const std::string& method, const std::string& target, const Json& body = nullptr
) {
    return site.Handle(api, MakeSimRequest(method, target, body.is_null() ? std::string() : body.dump()));
}

inline Json BodyOf(const SimResponse& response) {
    return Json::parse(response.body);
}

}  // namespace orch::sim::test
