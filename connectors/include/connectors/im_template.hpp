#pragma once

#include "connectors/connector.hpp"

#include <cstddef>
#include <string>

namespace orch::connectors {

/// The TOSCA document sent to IM, rewritten as the original does before sending: every
/// `get_input` replaced by the effective input value (and the `inputs` section dropped), and
/// for each VM node placement chose a flavor/image for, the host capability's `instance_type`
/// and the os capability's `image` (a provider URL such as ost://host/id when the catalogue
/// gives a bare id). GPU requests stay in the host capability (IM maps them to RADL gpu.*).
/// Everything else (imports, types, interfaces, artifacts, outputs, policies) goes as written.
ConnectorResult<std::string> ImTemplate(const DeployRequest& request, std::size_t max_bytes);

}  // namespace orch::connectors
