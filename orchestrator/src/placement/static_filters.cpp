#include "evaluation.hpp"
#include "gpu_model.hpp"

#include <algorithm>

namespace orch::placement {
namespace {

cmdb::ServiceKind NeededServiceKind(tosca::DeploymentKind kind) {
    switch (kind) {
        case tosca::DeploymentKind::kVirtualMachines:
            return cmdb::ServiceKind::kOpenStack;
        case tosca::DeploymentKind::kMarathon:
            return cmdb::ServiceKind::kMarathon;
        case tosca::DeploymentKind::kChronos:
            return cmdb::ServiceKind::kChronos;
        case tosca::DeploymentKind::kKubernetes:
            return cmdb::ServiceKind::kKubernetes;
        case tosca::DeploymentKind::kSlurm:
            return cmdb::ServiceKind::kSlurm;
    }
    return cmdb::ServiceKind::kOpenStack;
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& item) { return Lower(item) == Lower(value); });
}

bool IsSlaPolicy(const tosca::PlacementPolicy& policy) {
    return policy.type.find("SlaPlacement") != std::string::npos || (!policy.sla_id.empty() && policy.cloud_id.empty());
}

bool IsSitePolicy(const tosca::PlacementPolicy& policy) {
    return policy.type == "tosca.policies.indigo.Placement" || !policy.cloud_id.empty() || !policy.service_id.empty();
}

}  // namespace

const cmdb::Service* ParentOf(const cmdb::Catalogue& catalogue, const cmdb::Service& service) {
    return service.parent_id.empty() ? nullptr : catalogue.FindService(service.parent_id);
}

PolicyScope BuildPolicyScope(const tosca::DeploymentSpec& spec, const cmdb::SlaSet& slas, const std::string& group) {
    PolicyScope scope;
    for (const auto& policy : spec.policies) {
        const std::string name = policy.name.empty() ? policy.type : policy.name;
        if (IsSlaPolicy(policy)) {
            const cmdb::Sla* sla = slas.FindSla(policy.sla_id);
            if (sla == nullptr) {
                scope.missing_slas.push_back(policy.sla_id);
                scope.notes.push_back(
                    "No SLA with id " + policy.sla_id + " available for group '" + group + "' (placement policy " +
                    name + ")"
                );
                continue;
            }
            scope.slas.push_back(sla);
            if (!policy.region.empty()) {
                scope.regions.push_back(policy.region);
            }
        } else if (IsSitePolicy(policy)) {
            if (!policy.cloud_id.empty()) {
                scope.sites.push_back(policy.cloud_id);
            }
        } else {
            scope.notes.push_back("placement policy " + name + " of type " + policy.type + " is ignored");
            continue;
        }
        if (!policy.service_id.empty()) {
            scope.services.push_back(policy.service_id);
        }
    }
    return scope;
}

void CheckKind(const PlacementContext& context, Evaluation& eval) {
    const auto wanted = NeededServiceKind(context.profile.kind);
    if (KindOf(eval) == wanted) {
        return;
    }
    const auto& service = *eval.service();
    const std::string needs = std::string(KindWords(context.profile.kind));
    if (!cmdb::IsDeployable(KindOf(eval))) {  // an IM-only IaaS site with an IM endpoint is a VM site
        eval.Reject(
            "is a " + service.service_type +
            " service, which this orchestrator cannot deploy to; this deployment needs " + needs
        );
        return;
    }
    eval.Reject(
        "runs " + std::string(cmdb::ServiceKindWord(service.kind)) + " workloads; this deployment needs " + needs
    );
}

void CheckIdentity(const PlacementContext& context, Evaluation& eval) {
    const std::string_view issuer = TrimSlash(context.requester.issuer);
    if (issuer.empty() || !eval.site->iam_enabled || (*context.trusted_idp_sets)[eval.site->idp_set] != 0) {
        return;  // the universe's copy answers without touching the service
    }
    const auto& service = *eval.service();
    if (issuer.empty() || !service.iam_enabled) {
        return;
    }
    for (const auto& idp : service.supported_idps) {
        if (TrimSlash(idp.issuer) == issuer) {
            return;
        }
    }
    std::string list;
    for (const auto& idp : service.supported_idps) {
        list += (list.empty() ? "" : ", ") + idp.issuer;
    }
    eval.Reject(
        "does not accept users of " + context.requester.issuer +
        " (it trusts: " + (list.empty() ? "no identity provider" : list) + ")"
    );
}

void CheckPolicies(const PolicyScope& scope, Evaluation& eval) {
    for (const auto& id : scope.missing_slas) {
        eval.Reject("the placement policy asks for SLA " + id + ", which your group does not have");
    }
    bool named_by_policy = false;
    for (const auto* sla : scope.slas) {
        const bool covered = std::any_of(sla->services.begin(), sla->services.end(), [&](const cmdb::SlaService& s) {
            return s.service_id == eval.service_id();
        });
        if (!covered) {
            eval.Reject("is not covered by SLA " + sla->id + ", which the placement policy asks for");
        }
        named_by_policy = named_by_policy || covered;
    }
    for (const auto& region : scope.regions) {
        if (Lower(region) != Lower(eval.service()->region)) {
            eval.Reject(
                "is in region '" + eval.service()->region + "'; the placement policy asks for region '" + region + "'"
            );
        }
    }
    if (!scope.sites.empty() && !Contains(scope.sites, eval.provider_id()) &&
        (eval.provider() == nullptr || !Contains(scope.sites, eval.provider()->name))) {
        eval.Reject("is not the site named by the placement policy (" + scope.sites.front() + ")");
    }
    if (!scope.services.empty() && !Contains(scope.services, eval.service_id())) {
        eval.Reject("is not the service named by the placement policy (" + scope.services.front() + ")");
    }
    named_by_policy = named_by_policy || Contains(scope.services, eval.service_id());
    // The service's own kind: an EC2 site reached through IM is a VM site (KindOf) that still
    // needs the user's credentials.
    if (eval.site->credential_iaas && !named_by_policy) {
        eval.Reject("needs your own cloud credentials; it can be used only through an SLA placement policy");
    }
}

}  // namespace orch::placement
