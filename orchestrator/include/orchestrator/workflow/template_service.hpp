#pragma once

#include <string>

#include "common/json.hpp"
#include "common/result.hpp"
#include "tosca/deployment_spec.hpp"

namespace orch::workflow {

/// Validates a TOSCA template with the user's parameters and builds the DeploymentSpec.
/// Errors are kInvalidArgument with the message the API returns as the 400 body
/// ("Error parsing TOSCA template ...", "Input <x> is required ...").
class TemplateService {
public:
    virtual ~TemplateService() = default;
    virtual Result<tosca::DeploymentSpec> Build(const std::string& template_text, const Json& parameters) = 0;
    /// Validation without inputs (tosca-check's mode): a required input without default is fine.
    virtual Status Check(const std::string& template_text) = 0;
};

}  // namespace orch::workflow
