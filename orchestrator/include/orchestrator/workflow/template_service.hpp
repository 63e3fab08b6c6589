#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "tosca/deployment_spec.hpp"

#include <string>

namespace orch::workflow {

/// Validates a TOSCA template with the user's parameters and builds the DeploymentSpec.
/// Errors are kInvalidArgument with the message the API returns as the 400 body
/// ("Error parsing TOSCA template ...", "Input <x> is required ...", "Parameter 'x' is not an
/// input of the template; did you mean 'y'?").
///
/// A parameter naming no input is refused (unless tosca.unknown_parameters is `ignore`) except
/// when `accepted` (an object) names it: parameters accepted earlier — a deployment's stored ones
/// in the workflow, those stored before a PUT, a schedule's at its events — must not turn a
/// deployment accepted before the check into one that can neither run nor be deleted.
class TemplateService {
   public:
    virtual ~TemplateService() = default;
    virtual Result<tosca::DeploymentSpec> Build(
        const std::string& template_text, const Json& parameters, const Json& accepted
    ) = 0;
    /// Validation without inputs (tosca-check's mode): a required input without default is fine.
    virtual Status Check(const std::string& template_text) = 0;
};

/// `accepted` for a request's own parameters: none accepted earlier, every one is checked.
inline const Json& NoAcceptedParameters() {
    static const Json kNone = Json::object();
    return kNone;
}

}  // namespace orch::workflow
