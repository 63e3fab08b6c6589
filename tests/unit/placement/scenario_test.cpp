// The fixture scenarios of the placement reference, end to end through DefaultPlacer.
#include "fixture_world.hpp"

#include <catch2/catch.hpp>

#include <map>

namespace orch::test {
namespace {

const std::string kRecas = "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b";
const std::string kIfca = "IFCA-LCG2_23e4d765-4a0d-52ec-ab60-91cfd67b2874";
const std::string kPadova = "INFN-PADOVA_f164876a-4d52-57c7-9a86-84c8d4a8a896";
const std::string kCesga = "CESGA_af2c94c6-ca40-5663-9bbf-2ec3797958da";
const std::string kPsnc = "PSNC_e724999f-0038-518a-9bdb-d62c988204ec";
const std::string kAws = "AWS-EU-WEST-1_9f198ae4-5157-5c56-a13c-050ccc256d0a";
const std::string kCnafMarathon = "INFN-CNAF_bd78f67d-59fa-5307-b052-fee2b5446af9";
const std::string kUpvMarathon = "UPV-GRyCAP_9cd81169-44e3-5050-9c51-26088014872e";
const std::string kCesnet = "CESNET-MCC_29f7f5d4-a720-5e19-9b39-8fdc029b727d";

std::vector<std::string> Order(const placement::PlacementDecision& decision) {
    std::vector<std::string> out;
    for (const auto& candidate : decision.ranked) {
        out.push_back(candidate.target.service_id);
    }
    return out;
}

TEST_CASE("scenario A in indigo mode reproduces the original order, the down site first", "[placement][indigo]") {
    FixtureWorld world(IndigoOptions());
    const auto decision = world.Place(GpuVmSpec());
    REQUIRE(Order(decision) == std::vector<std::string>{kPadova, kRecas, kIfca});
    CHECK(decision.ranked[0].score == Approx(551.252).margin(1e-3));
    CHECK(decision.ranked[1].score == Approx(358.2457).margin(1e-3));
    CHECK(decision.ranked[2].score == Approx(112.5875).margin(1e-3));
    CHECK(decision.ranked[1].placements.at("vm").flavor_name == "g1.t4x1");
    CHECK(decision.ranked[2].placements.at("vm").flavor_name == "g5.a100x1");
    CHECK(decision.ranked[0].placements.at("vm").flavor_name == "gpu.v100x1");
    CHECK(decision.ranked[1].placements.at("vm").image_name == "Ubuntu 20.04 NVIDIA 470 CUDA 11.4");
    CHECK(decision.mode == "indigo");
}

TEST_CASE("scenario A rejections name the filter that fired", "[placement]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec());
    const auto* cesga = FindVerdict(decision, kCesga);
    REQUIRE(cesga != nullptr);
    CHECK_FALSE(cesga->accepted);
    CHECK_THAT(AllReasons(*cesga), Catch::Contains("no flavor has 1 GPU (the most is 0"));
    const auto* psnc = FindVerdict(decision, kPsnc);
    REQUIRE(psnc != nullptr);
    CHECK_THAT(AllReasons(*psnc), Catch::Contains("does not accept users of https://iam.paas.example.org/"));
    CHECK_THAT(AllReasons(*psnc), Catch::Contains("cannot deploy to"));
    const auto* aws = FindVerdict(decision, kAws);
    REQUIRE(aws != nullptr);
    CHECK_THAT(AllReasons(*aws), Catch::Contains("only through an SLA placement policy"));
    const auto* marathon = FindVerdict(decision, kCnafMarathon);
    REQUIRE(marathon != nullptr);
    CHECK_THAT(
        AllReasons(*marathon), Catch::Contains("runs marathon workloads; this deployment needs virtual machines")
    );
}

// Counts what the placer reports, by filter.
class CountingObserver final : public placement::PlacementObserver {
   public:
    void Rejected(placement::RejectionFilter filter, std::size_t reasons) override {
        counts[filter] += reasons;
        ++calls;
    }
    std::map<placement::RejectionFilter, std::size_t> counts;
    int calls = 0;
};

TEST_CASE("scenario A rejections are reported to the observer by filter, once per filter", "[placement][metrics]") {
    FixtureWorld world;
    CountingObserver observer;
    world.placer->SetObserver(&observer);
    const auto decision = world.Place(GpuVmSpec());
    using placement::RejectionFilter;
    CHECK(observer.counts[RejectionFilter::kKind] >= 1);      // the Marathon site
    CHECK(observer.counts[RejectionFilter::kIdentity] >= 1);  // PSNC does not accept IAM users
    CHECK(observer.counts[RejectionFilter::kPolicy] >= 1);    // AWS only through a policy
    CHECK(observer.counts[RejectionFilter::kVmMatch] >= 1);   // CESGA has no GPU flavor
    std::size_t reported = 0;
    for (const auto& [filter, reasons] : observer.counts) {
        reported += reasons;
    }
    std::size_t given = 0;
    for (const auto& verdict : decision.verdicts) {
        given += verdict.accepted ? 0 : verdict.reasons.size();
    }
    CHECK(reported == given);
    CHECK(observer.calls == static_cast<int>(observer.counts.size()));
    world.placer->SetObserver(nullptr);
    (void)world.Place(GpuVmSpec());  // nobody observes: nothing reported, nothing breaks
    CHECK(observer.calls == static_cast<int>(observer.counts.size()));
}

TEST_CASE("scenario A in gpu-aware mode drops the down site and keeps SLA priority", "[placement][gpu-aware]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec());
    REQUIRE(Order(decision) == std::vector<std::string>{kRecas, kIfca});
    const auto* padova = FindVerdict(decision, kPadova);
    REQUIRE(padova != nullptr);
    CHECK_FALSE(padova->accepted);
    CHECK_THAT(AllReasons(*padova), Catch::Contains("is down: its last monitoring probe failed (HTTP 503)"));
    const auto* recas = FindVerdict(decision, kRecas);
    REQUIRE(recas != nullptr);
    CHECK(recas->rank == 1);
    CHECK(recas->score_breakdown.at("availability") == 1.0);
    CHECK(recas->score_breakdown.at("sla_weight") == 1.0);
}

TEST_CASE("scenario B: a GPU Marathon app goes to the CNAF Marathon only", "[placement][indigo]") {
    FixtureWorld world(IndigoOptions());
    const auto decision = world.Place(MarathonSpec(1));
    REQUIRE(Order(decision) == std::vector<std::string>{kCnafMarathon});
    CHECK(decision.ranked[0].score == Approx(680.33733).margin(1e-3));
    CHECK(decision.ranked[0].endpoint.at("deploymentType") == "MARATHON");
    CHECK_THAT(AllReasons(*FindVerdict(decision, kUpvMarathon)), Catch::Contains("gpu_support is off"));
}

TEST_CASE("scenario B2: a CPU Marathon app ranks CNAF before UPV in indigo mode", "[placement][indigo]") {
    FixtureWorld world(IndigoOptions());
    const auto decision = world.Place(MarathonSpec(0));
    REQUIRE(Order(decision) == std::vector<std::string>{kCnafMarathon, kUpvMarathon});
    CHECK(decision.ranked[1].score == Approx(458.36511).margin(1e-3));
}

TEST_CASE("scenario C: a Helm chart goes to the Kubernetes site without monitoring", "[placement][indigo]") {
    FixtureWorld world(IndigoOptions());
    const auto decision = world.Place(HelmSpec(1));
    REQUIRE(Order(decision) == std::vector<std::string>{kCesnet});
    CHECK(decision.ranked[0].score == Approx(128.9488).margin(1e-3));
    CHECK(decision.ranked[0].target.kind == connectors::TargetKind::kKubernetes);
}

TEST_CASE("scenario D: ml-lab gets RECAS only, with the T4 flavor", "[placement][indigo]") {
    FixtureWorld world(IndigoOptions());
    const auto decision = world.Place(GpuVmSpec(), "ml-lab");
    REQUIRE(Order(decision) == std::vector<std::string>{kRecas});
    CHECK(decision.ranked[0].score == Approx(50.2125).margin(1e-3));
    CHECK(decision.ranked[0].placements.at("vm").flavor_name == "g1.t4x1");
    CHECK(decision.ranked[0].target.project == "ML-LAB");
}

TEST_CASE("an 8-GPU VM fits nowhere and the message says why per site", "[placement]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec(8));
    REQUIRE(decision.ranked.empty());
    const std::string message = decision.NoCandidateMessage();
    CHECK(message.rfind("No cloud provider meets the deployment requirements", 0) == 0);
    CHECK_THAT(
        message,
        Catch::Contains("- RECAS-BARI (openstack): node 'vm': no flavor has 8 GPUs (the most is 2, in g2.v100x2)")
    );
    CHECK_THAT(
        message,
        Catch::Contains("- IFCA-LCG2 (openstack): node 'vm': no flavor has 8 GPUs (the most is 4, in g5.a100x4)")
    );
    CHECK_THAT(message, Catch::Contains("- INFN-CNAF (marathon): runs marathon workloads"));
}

TEST_CASE("a group without SLAs gets SLAM's error in the explanation", "[placement]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec(), "other-group");
    CHECK(decision.ranked.empty());
    CHECK_THAT(
        decision.NoCandidateMessage(), Catch::Contains("Error fetching SLA for customer other-group from SLAM.")
    );
}

TEST_CASE("an SLA placement policy selects AWS, the credentials site", "[placement]") {
    FixtureWorld world;
    auto spec = GpuVmSpec();
    spec.policies.push_back(
        {"placement", "tosca.policies.indigo.SlaPlacement", "b2d5506ec4feee6deeac4944", "", "", "", {}}
    );
    const auto decision = world.Place(spec);
    REQUIRE(decision.ranked.empty());  // no AWS connector: explained, not chosen
    const auto* aws = FindVerdict(decision, kAws);
    REQUIRE(aws != nullptr);
    CHECK_THAT(AllReasons(*aws), Catch::Contains("cannot deploy to"));
    CHECK_THAT(AllReasons(*aws), !Catch::Contains("only through an SLA placement policy"));
    CHECK_THAT(
        AllReasons(*FindVerdict(decision, kRecas)), Catch::Contains("is not covered by SLA b2d5506ec4feee6deeac4944")
    );
}

TEST_CASE("an unknown SLA in a policy is explained, not a crash", "[placement]") {
    FixtureWorld world;
    auto spec = GpuVmSpec();
    spec.policies.push_back({"p", "tosca.policies.indigo.SlaPlacement", "no-such-sla", "", "", "", {}});
    const auto decision = world.Place(spec);
    CHECK(decision.ranked.empty());
    CHECK_THAT(
        decision.NoCandidateMessage(), Catch::Contains("asks for SLA no-such-sla, which your group does not have")
    );
    CHECK(
        std::find(
            decision.notes.begin(),
            decision.notes.end(),
            "No SLA with id no-such-sla available for group 'deep-hdc' (placement policy p)"
        ) != decision.notes.end()
    );
}

TEST_CASE("the token reaches no log and no decision", "[placement]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec());
    CHECK(decision.ToJson().dump().find("token-not-for-logs") == std::string::npos);
}

}  // namespace
}  // namespace orch::test
