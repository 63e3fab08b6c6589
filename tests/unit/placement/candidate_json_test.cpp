// The one stored form of a candidate (placement/candidate_json.hpp): what an attempt stores and
// what the placement record's candidate entries carry read back through the same reader.
#include "orchestrator/placement/candidate_json.hpp"

#include <catch2/catch.hpp>

namespace orch::test {
namespace {

placement::Candidate KubernetesCandidate() {
    placement::Candidate candidate;
    candidate.target.site_id = "site-1";
    candidate.target.service_id = "svc-1";
    candidate.target.kind = connectors::TargetKind::kKubernetes;
    candidate.target.endpoint = "https://k8s.example.org:6443";
    candidate.target.region = "east";
    candidate.target.project = "team";
    candidate.target.options = Json{{"namespace_prefix", "orch"}};
    candidate.target.credentials.bearer_token = "never-stored";
    candidate.placements["app"] = {"f1", "small", "i1", "ubuntu"};
    candidate.provider_name = "Site One";
    candidate.endpoint = Json{{"deploymentType", "KUBERNETES"}};
    candidate.score = 0.75;
    return candidate;
}

TEST_CASE("a stored candidate reads back whole, without its credentials", "[placement][json]") {
    const Json stored = placement::CandidateToJson(KubernetesCandidate());
    CHECK(stored.at("target").at("kind") == "KUBERNETES");
    CHECK(stored.dump().find("never-stored") == std::string::npos);

    const auto back = placement::CandidateFromJson(stored);
    REQUIRE(back);
    CHECK(back->target.kind == connectors::TargetKind::kKubernetes);
    CHECK(back->target.site_id == "site-1");
    CHECK(back->target.options.at("namespace_prefix") == "orch");
    CHECK(back->target.credentials.bearer_token.empty());
    CHECK(back->placements.at("app").image_name == "ubuntu");
    CHECK(back->score == 0.75);
    CHECK(placement::CandidateToJson(*back) == stored);
}

TEST_CASE("a placement record's candidate entry reads through the same reader", "[placement][json]") {
    Json entry = placement::CandidateToJson(KubernetesCandidate());
    entry["rank"] = 1;
    entry["provider_id"] = "site-1";
    entry["deployment_type"] = "KUBERNETES";
    const auto back = placement::CandidateFromJson(entry);
    REQUIRE(back);
    CHECK(placement::CandidateToJson(*back) == placement::CandidateToJson(KubernetesCandidate()));
}

TEST_CASE("a stored candidate with an unknown kind or of the wrong shape is refused", "[placement][json]") {
    Json unknown = placement::CandidateToJson(KubernetesCandidate());
    unknown["target"]["kind"] = "NOPE";
    CHECK_FALSE(placement::CandidateFromJson(unknown));
    CHECK_FALSE(placement::CandidateFromJson(Json::array()));
    CHECK_FALSE(placement::TargetFromJson(Json("OPENSTACK")));
}

}  // namespace
}  // namespace orch::test
