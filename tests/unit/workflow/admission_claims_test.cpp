// What admission claims for a placed deployment (ClaimsFor) and what an update changes on the
// quota counters (UpdateClaims): the GPU class is the chosen flavor's when placement knows it,
// and an update's change is per counter, growth positive, shrink negative.
#include <orchestrator/placement/usage.hpp>
#include <orchestrator/workflow/admission.hpp>

#include <catch2/catch.hpp>

#include <optional>

namespace orch::test {
namespace {

using workflow::CounterKey;
using workflow::QuotaClaim;
using workflow::QuotaResource;
using workflow::QuotaScope;

// `count` VMs of one GPU each asking for `vendor`/`model` ("" = any).
tosca::DeploymentSpec GpuVms(int count, const std::string& vendor, const std::string& model) {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kVirtualMachines;
    tosca::NodeSpec node;
    node.name = "worker";
    node.type = "tosca.nodes.indigo.Compute";
    node.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    node.count = count;
    node.resources.cpus = 4;
    node.resources.gpu = tosca::GpuRequest{1, vendor, model, std::nullopt};
    spec.nodes.push_back(node);
    return spec;
}

// Group g's configured quota: 8 GPUs, of which 2 A100 (declared with the full model as alias).
placement::PlacementDecision Decision() {
    placement::PlacementDecision decision;
    decision.quota_group = "g";
    decision.configured_quota.group.gpus = 8;
    placement::GpuClass a100{"A100", {"NVIDIA A100-SXM4-40GB"}, "NVIDIA", std::nullopt};
    decision.configured_quota.group.gpu_classes.push_back({a100, 2});
    placement::Candidate site;
    site.target.service_id = "svc";
    decision.ranked.push_back(site);
    return decision;
}

std::optional<double> Claimed(const std::vector<QuotaClaim>& claims, const std::string& gpu_class) {
    for (const auto& c : claims) {
        if (c.key.scope == QuotaScope::kGroup && c.key.resource == QuotaResource::kGpus &&
            c.key.gpu_class == gpu_class) {
            return c.amount;
        }
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("the GPU class claimed is the chosen flavor's, not only the request's model", "[workflow][admission]") {
    const placement::Requester alice{"iss", "alice", "g"};
    const auto spec = GpuVms(2, "NVIDIA", "");  // "any NVIDIA"
    auto decision = Decision();
    const auto request = placement::RequestedResources(spec);
    SECTION("placement chose an A100 flavor: the A100 class is claimed") {
        decision.ranked[0].chosen_gpus["worker"] = tosca::GpuRequest{1, "NVIDIA", "NVIDIA A100-SXM4-40GB", 40960};
        const auto claims = workflow::ClaimsFor(decision, alice, request, spec, 0);
        CHECK(Claimed(claims, "") == 2.0);
        CHECK(Claimed(claims, "A100") == 2.0);
    }
    SECTION("a T4 flavor: no A100 claim") {
        decision.ranked[0].chosen_gpus["worker"] = tosca::GpuRequest{1, "NVIDIA", "Tesla T4", 16384};
        const auto claims = workflow::ClaimsFor(decision, alice, request, spec, 0);
        CHECK(Claimed(claims, "") == 2.0);
        CHECK_FALSE(Claimed(claims, "A100"));
    }
    SECTION("no flavor known (a container site): the request's model decides, as before") {
        const auto claims = workflow::ClaimsFor(decision, alice, request, spec, 0);
        CHECK_FALSE(Claimed(claims, "A100"));
        const auto asked = GpuVms(2, "NVIDIA", "A100");
        CHECK(Claimed(workflow::ClaimsFor(decision, alice, request, asked, 0), "A100") == 2.0);
    }
}

TEST_CASE("an update's claims are the change per counter", "[workflow][admission]") {
    const placement::Requester alice{"iss", "alice", "g"};
    auto decision = Decision();
    decision.configured_quota.group.cpus = 64;
    decision.ranked[0].chosen_gpus["worker"] = tosca::GpuRequest{1, "NVIDIA", "NVIDIA A100-SXM4-40GB", 40960};
    const auto claims = [&](int workers) {
        const auto spec = GpuVms(workers, "NVIDIA", "");
        return workflow::ClaimsFor(decision, alice, placement::RequestedResources(spec), spec, 0);
    };
    const auto grow = workflow::UpdateClaims(claims(2), claims(3));
    REQUIRE(grow.size() == 3);  // CPUs, GPUs, A100s of group g
    CHECK(Claimed(grow, "") == 1.0);
    CHECK(Claimed(grow, "A100") == 1.0);
    CHECK(grow[0].key < grow[1].key);  // the lock order
    for (const auto& c : grow) {
        if (c.key.resource == QuotaResource::kCpus) {
            CHECK(c.amount == 4);
            CHECK(c.limit == 64);
        }
    }
    const auto shrink = workflow::UpdateClaims(claims(3), claims(1));
    CHECK(Claimed(shrink, "") == -2.0);
    CHECK(Claimed(shrink, "A100") == -2.0);
    CHECK(workflow::UpdateClaims(claims(2), claims(2)).empty());
    // From nothing (the old spec asked for no GPU): the whole new amount.
    CHECK(Claimed(workflow::UpdateClaims({}, claims(2)), "A100") == 2.0);
}

TEST_CASE("an update refused by a quota says which and how much is free", "[workflow][admission]") {
    const CounterKey key{QuotaScope::kGroup, "iss", "physics", "", "", QuotaResource::kGpus, ""};
    const auto full = workflow::UpdateRefusedMessage(QuotaClaim{key, 1, 4}, 4);
    CHECK_THAT(full, Catch::Contains("1 more × GPU") && Catch::Contains("group 'physics' (4) has 0 free now (4 held)"));
    auto per_class = key;
    per_class.gpu_class = "A100";
    CHECK_THAT(
        workflow::UpdateRefusedMessage(QuotaClaim{per_class, 6, 4}, 0),
        Catch::Contains("× A100") && Catch::Contains("is smaller than that")
    );
}

}  // namespace orch::test
