#pragma once

#include <string>

#include "common/json.hpp"
#include "orchestrator/domain/deployment.hpp"

namespace orch::api {

/// The Deployment JSON of contract §1.5. `base_url` empty renders "links": [] (callback bodies).
Json DeploymentView(const domain::Deployment& d, const std::string& base_url);

/// The Resource JSON of contract §1.5.
Json ResourceView(const domain::Resource& r, const std::string& base_url);

}  // namespace orch::api
