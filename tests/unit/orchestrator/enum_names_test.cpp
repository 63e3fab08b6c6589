// Each stored enum has one name/parse pair; the names are the database's text, so a round trip
// must give every value back and unknown text must not become a real value.
#include "orchestrator/api/views.hpp"
#include "orchestrator/domain/attempt.hpp"
#include "orchestrator/workflow/job_kind.hpp"
#include "tosca/deployment_spec.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using orch::domain::AttemptOutcome;
using orch::tosca::DeploymentKind;
using orch::workflow::JobKind;

TEST_CASE("job kinds round-trip through the jobs table's text", "[enums]") {
    std::set<std::string> names;
    for (int i = 0; i < static_cast<int>(JobKind::kUnknown); ++i) {
        const auto kind = static_cast<JobKind>(i);
        const std::string name(orch::workflow::JobKindName(kind));
        CHECK(orch::workflow::ParseJobKind(name) == kind);
        names.insert(name);
    }
    CHECK(names.size() == static_cast<std::size_t>(JobKind::kUnknown));  // no two kinds share a name
    // The texts the deployment store's SQL writes itself.
    CHECK(orch::workflow::ParseJobKind("deploy") == JobKind::kDeploy);
    CHECK(orch::workflow::ParseJobKind("delete") == JobKind::kDelete);
    CHECK(orch::workflow::ParseJobKind("update") == JobKind::kUpdate);
    CHECK(orch::workflow::ParseJobKind("action") == JobKind::kAction);
    CHECK(orch::workflow::ParseJobKind("delete_poll") == JobKind::kDeletePoll);
    CHECK(orch::workflow::ParseJobKind("place") == JobKind::kUnknown);
    CHECK(orch::workflow::ParseJobKind("DEPLOY") == JobKind::kUnknown);
    CHECK(orch::workflow::ParseJobKind("unknown") == JobKind::kUnknown);
}

TEST_CASE("attempt outcomes round-trip through the attempts table's text", "[enums]") {
    for (const auto outcome : {AttemptOutcome::kRunning, AttemptOutcome::kSucceeded, AttemptOutcome::kFailed}) {
        CHECK(orch::domain::ParseAttemptOutcome(orch::domain::AttemptOutcomeName(outcome)) == outcome);
    }
    CHECK(orch::domain::AttemptOutcomeName(AttemptOutcome::kSucceeded) == "SUCCEEDED");
    CHECK(orch::domain::ParseAttemptOutcome("succeeded") == AttemptOutcome::kUnknown);
}

TEST_CASE("deployment kinds round-trip through the deployments table's text", "[enums]") {
    for (const auto kind :
         {DeploymentKind::kVirtualMachines,
          DeploymentKind::kMarathon,
          DeploymentKind::kChronos,
          DeploymentKind::kKubernetes,
          DeploymentKind::kSlurm}) {
        CHECK(orch::tosca::ParseDeploymentKind(orch::tosca::DeploymentKindName(kind)) == kind);
    }
    CHECK(orch::tosca::ParseDeploymentKind("SLURM") == DeploymentKind::kSlurm);
    CHECK_FALSE(orch::tosca::ParseDeploymentKind(""));  // rows written before kinds were recorded
    CHECK_FALSE(orch::tosca::ParseDeploymentKind("QCG"));
}

TEST_CASE("the contract's provider names and what each kind takes come from the deployment kind", "[enums]") {
    CHECK(orch::api::ContractProviderName(DeploymentKind::kSlurm) == "QCG");
    CHECK(orch::api::ContractProviderName(DeploymentKind::kMarathon) == "MARATHON");
    CHECK_FALSE(orch::api::TakesUpdates(DeploymentKind::kSlurm));
    CHECK(orch::api::TakesUpdates(DeploymentKind::kMarathon));
    CHECK(orch::api::TakesUpdates(DeploymentKind::kChronos));
    CHECK(orch::api::TakesUpdates(DeploymentKind::kKubernetes));
    CHECK(orch::api::TakesUpdates(std::nullopt));
    CHECK(orch::api::TakesActions(DeploymentKind::kChronos));  // its jobs are disabled and enabled
    CHECK_FALSE(orch::api::TakesActions(DeploymentKind::kSlurm));
    CHECK(orch::api::TakesActions(DeploymentKind::kMarathon));
    CHECK(orch::api::TakesActions(DeploymentKind::kKubernetes));
}
