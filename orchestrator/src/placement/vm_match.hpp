#pragma once

#include "cmdb/site_model.hpp"
#include "request_profile.hpp"

#include <string>
#include <vector>

namespace orch::placement {

/// The smallest flavor that fits, or why none does (in words, naming the closest offer).
struct FlavorChoice {
    const cmdb::Flavor* flavor = nullptr;
    std::string reason;
};

/// Flavors are tried smallest first by (GPUs, vCPUs, RAM, disk), so the choice wastes the least;
/// an explicit `instance_type` wins when it exists. GPU vendor/model/memory are checked only
/// when GPUs are asked for.
FlavorChoice ChooseFlavor(
    const FlavorNeed& need, const std::string& instance_type, const std::vector<cmdb::Flavor>& flavors
);

/// What one VM node asks of flavors, kept alive by the reasons that point into it so that a miss is
/// explained in words only when the explanation is shown.
struct NodeFacts {
    std::string name;
    std::string instance_type;
    FlavorNeed need;
};

/// "node '<name>': <why no flavor of the tenant fits>" (ChooseFlavor's reason). For
/// Reason::Deferred: `node` is a NodeFacts, `tenant` a cmdb::Tenant, both alive when shown.
std::string ExplainFlavorMiss(const void* node, const void* tenant);

struct ImageChoice {
    const cmdb::Image* image = nullptr;
    std::string uri;  ///< set when the template names an IM image URI (ost://, one://, aws://, azr://)
    std::string reason;

    bool found() const { return image != nullptr || !uri.empty(); }
};

/// The original's matching: an image URI is taken as is; else by name (base and, when given,
/// tag equal); else by OS type/distribution/version (case-insensitive), GPU driver, CUDA support
/// and a minimum CUDA version (the original compared exactly; "min" means at least here).
ImageChoice ChooseImage(const tosca::ResourceRequest& wish, const std::vector<cmdb::Image>& images);

/// Compares dotted versions numerically ("11.4" < "11.10"); non-numeric parts compare as text.
int CompareVersions(const std::string& a, const std::string& b);

}  // namespace orch::placement
