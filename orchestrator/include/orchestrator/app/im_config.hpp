#pragma once

#include "common/config.hpp"
#include "common/result.hpp"
#include "connectors/im_connector.hpp"

#include <set>
#include <string>

namespace orch::app {

/// Reads the `im` section: im.endpoint (the global IM, as the original's im.url; empty: only
/// catalogue sites naming their own `im_endpoint` go through IM), im.username / im.password
/// (IM's own record when no user token is at hand), im.call_timeout, im.max_response_bytes.
Result<connectors::ImOptions> ImOptionsFromConfig(const ConfigTree& config);

std::set<std::string> ImConfigKeys();

}  // namespace orch::app
