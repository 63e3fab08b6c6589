#pragma once

#include "common/json.hpp"
#include "tosca/deployment_spec.hpp"

#include <map>
#include <string>

namespace orch::tosca {

/// Runtime attributes of the deployed nodes, by node template name. Each value is either one
/// object of attributes (`{"public_address": ["1.2.3.4"], "host": {"publish_ports": [...]}}`)
/// or an array with one such object per instance. Capability attributes may be given nested
/// under the capability name or under "capabilities": {cap: {...}}.
using NodeAttributes = std::map<std::string, Json>;

/// Evaluates every output of `spec` now that the deployment's attributes are known:
/// get_attribute (node or capability attribute, then list indexes / map keys), falling back to
/// the node's evaluated property of that name (TOSCA properties are attributes too), and the
/// concat / join / token around it. An output that cannot be computed (most often it needs an
/// attribute the site does not report) has the value null and a note says why, instead of
/// failing the rest or an error text posing as its value (issue 25). The IM simulator renders
/// the notes as IM's own error texts; it is the one caller that wants them.
struct OutputValues {
    Json values = Json::object();              ///< output name -> value (null when it has none)
    std::map<std::string, std::string> notes;  ///< output name -> why it has no value
};
OutputValues EvaluateOutputs(const DeploymentSpec& spec, const NodeAttributes& attributes);

}  // namespace orch::tosca
