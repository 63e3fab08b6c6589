#include "orchestrator/workflow/tosca_template_service.hpp"

namespace orch::workflow {

Result<tosca::DeploymentSpec> ToscaTemplateService::Build(
    const std::string& template_text, const Json& parameters, const Json& accepted
) {
    tosca::TemplateRequest request;
    request.inputs = parameters;
    request.accepted_parameters = &accepted;
    auto check = engine_.Check(template_text, request);
    if (!check.valid() || !check.spec) {
        return Error::InvalidArgument(check.ErrorMessage());
    }
    return std::move(*check.spec);
}

Status ToscaTemplateService::Check(const std::string& template_text) {
    const auto check = engine_.Check(template_text, {});
    if (!check.valid()) {
        return Error::InvalidArgument(check.ErrorMessage());
    }
    return Ok();
}

}  // namespace orch::workflow
