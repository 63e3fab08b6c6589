#pragma once

#include "connector_test_util.hpp"
#include "test_support/test_env.hpp"

#include <connectors/im_connector.hpp>
#include <tosca/engine.hpp>

#include <fstream>
#include <sstream>

namespace orch::connectors::test {

inline std::string CorpusDir() {
    return orch::test::SharedDir() + "/tosca-corpus";
}

/// The INDIGO types URLs mapped onto the corpus copies (the orchestrator and IM both read them).
inline std::string IndigoMirror() {
    return "https://raw.githubusercontent.com/indigo-dc/tosca-types/=" + CorpusDir() + "/indigo-dc-tosca-types/refs/";
}

inline const tosca::TemplateEngine& Engine() {
    static const tosca::TemplateEngine kEngine([] {
        tosca::EngineOptions options;
        options.mirrors.push_back(
            {"https://raw.githubusercontent.com/indigo-dc/tosca-types/", CorpusDir() + "/indigo-dc-tosca-types/refs/"}
        );
        return options;
    }());
    return kEngine;
}

inline std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// A site whose IM reads the corpus types; the clock stands still unless advanced.
inline std::unique_ptr<sim::SiteSim> ImSite(sim::SimConfig config = sim::SimConfig::Default()) {
    config.im_tosca_mirrors = IndigoMirror();
    return StillSite(std::move(config));
}

/// An OpenStack site reached through the simulated IM, with the user's token.
inline SiteTarget ImTarget(const std::string& site = "SIM-SITE") {
    SiteTarget target = Target(
        TargetKind::kOpenStack,
        "https://keystone.sim:5000/v3",
        {{"identity_provider", "egi.eu"}, {"protocol", "openid"}}
    );
    target.site_id = site;
    target.service_id = site + "_nova";
    target.project = "demo-project";
    target.region = "RegionOne";
    return target;
}

/// Flavor and image for every VM node of `spec`, as placement chooses them.
inline std::map<std::string, NodePlacement> VmPlacements(const tosca::DeploymentSpec& spec) {
    std::map<std::string, NodePlacement> out;
    for (const auto& node : spec.nodes) {
        if (tosca::DerivesFrom(node, "tosca.nodes.Compute")) {
            out[node.name] = NodePlacement{"fl-2", "m1.medium", "img-ubuntu-22", "ubuntu-22.04"};
        }
    }
    return out;
}

}  // namespace orch::connectors::test
