#include "iam_client_steps.hpp"

#include "orchestrator/workflow/iam_clients.hpp"

#include <utility>

namespace orch::workflow::steps {

Result<std::optional<AttemptTemplate>> ProvisionIamClients(
    StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec
) {
    const auto requests = IamClientRequests(spec);
    if (requests.empty()) {
        return std::optional<AttemptTemplate>();
    }
    const domain::Deployment& d = st.deployment;
    if (s.iam_clients == nullptr) {
        return Error::InvalidArgument(
            "this orchestrator does not register IAM clients (tosca.nodes.indigo.iam.client needs iam_clients.enabled)"
        );
    }
    if (!d.owner) {
        return Error::InvalidArgument("IAM clients are registered for a deployment's owner, and this one has none");
    }
    // An earlier attempt's clients served a site that failed: deleted before new ones exist.
    ORCH_RETURN_IF_ERROR(s.iam_clients->ReleaseAll(d.id));
    ORCH_ASSIGN_OR_RETURN(const std::string token, s.credentials.OwnerAccessToken(d.owner));
    std::vector<IamClientGrant> grants;
    for (const auto& request : requests) {
        ORCH_ASSIGN_OR_RETURN(IamClientGrant grant, s.iam_clients->Register(d.id, *d.owner, token, request));
        grants.push_back(std::move(grant));
    }
    ORCH_ASSIGN_OR_RETURN(std::string text, WithIamClients(d.template_text, grants, d.owner->subject));
    auto filled = s.templates.Build(text, d.parameters, d.parameters);
    if (!filled) {
        return std::move(filled).error();
    }
    return std::optional<AttemptTemplate>(AttemptTemplate{std::move(text), std::move(*filled)});
}

Status ReleaseIamClients(StepServices& s, const std::string& deployment_id) {
    return s.iam_clients == nullptr ? Ok() : s.iam_clients->ReleaseAll(deployment_id);
}

}  // namespace orch::workflow::steps
