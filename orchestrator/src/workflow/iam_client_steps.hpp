#pragma once

// The IAM client part of the deploy and delete steps (private to the workflow area).
#include "steps_common.hpp"

#include <optional>
#include <string>

namespace orch::workflow::steps {

/// What an attempt sends to its site when the template asks for IAM clients: the template with
/// the clients filled in, and the spec built from it.
struct AttemptTemplate {
    std::string text;
    tosca::DeploymentSpec spec;
};

/// Before an attempt's deploy: deletes the clients of earlier attempts (one live set per
/// deployment, never one per failed site), then registers one client per iam.client node of
/// `spec` with the owner's token. Nullopt for a template without such nodes. Errors:
/// kInvalidArgument is the request's (the deployment fails with its message), others are retried.
Result<std::optional<AttemptTemplate>> ProvisionIamClients(
    StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec
);

/// After the deployment's last attempt was deleted: its clients go too. Ok when there are none
/// or IAM clients are not configured.
Status ReleaseIamClients(StepServices& s, const std::string& deployment_id);

}  // namespace orch::workflow::steps
