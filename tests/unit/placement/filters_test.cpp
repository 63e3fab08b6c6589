// Every filter, each with the reason it records.
#include "fixture_world.hpp"
#include "synthetic_world.hpp"

#include <catch2/catch.hpp>

namespace orch::test {
namespace {

std::vector<std::string> Accepted(const placement::PlacementDecision& decision) {
    std::vector<std::string> out;
    for (const auto& candidate : decision.ranked) {
        out.push_back(candidate.target.service_id);
    }
    return out;
}

std::string Reasons(const placement::PlacementDecision& decision, const std::string& service) {
    const auto* verdict = FindVerdict(decision, service);
    REQUIRE(verdict != nullptr);
    return AllReasons(*verdict);
}

tosca::DeploymentSpec BatchSpec(int gpus, const std::string& model) {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kSlurm;
    tosca::NodeSpec node;
    node.name = "job";
    node.type = "tosca.nodes.indigo.Batch.Job";
    node.type_chain = {node.type, "tosca.nodes.Root"};
    node.resources.gpu.count = gpus;
    node.resources.gpu.model = model;
    spec.nodes.push_back(node);
    return spec;
}

TEST_CASE("container GPUs: live free capacity per model, in the user's words", "[placement][filter]") {
    SyntheticWorld world;
    const auto decision = world.Place(MarathonSpec(2, "V100"));
    CHECK(Accepted(decision).empty());
    CHECK_THAT(
        decision.NoCandidateMessage(),
        Catch::Contains("- site-b (marathon): needs 2 GPUs of model V100, has 4 free of model Tesla T4 (live)")
    );
    CHECK_THAT(Reasons(decision, "C-marathon"), Catch::Contains("needs 2 GPUs of model V100, has 1 free (live)"));
    CHECK_THAT(
        Reasons(decision, "D-marathon"),
        Catch::Contains("has no GPUs for Marathon apps (gpu_support is off in the catalogue)")
    );
    CHECK_THAT(
        Reasons(decision, "A-nova"), Catch::Contains("runs openstack workloads; this deployment needs Marathon apps")
    );
}

TEST_CASE(
    "container GPUs: the decision gives the admission cycle each measured site's GPUs (gpu_sites)",
    "[placement][filter][admission]"
) {
    SyntheticWorld world;
    const auto decision = world.Place(MarathonSpec(1, ""));
    // C publishes free GPUs of any model (1 of its 4); B only per model: not listed.
    std::vector<std::string> listed;
    for (const auto& site : decision.gpu_sites) {
        listed.push_back(site.service_id);
        if (site.service_id == "C-marathon") {
            CHECK(site.total == 4);
            CHECK(site.free == 1);
        }
    }
    CHECK(listed == std::vector<std::string>{"C-marathon"});
}

TEST_CASE("container GPUs: the model matches by words, T4 apps go where T4s are free", "[placement][filter]") {
    SyntheticWorld world;
    const auto decision = world.Place(MarathonSpec(2, "t4"));
    REQUIRE(Accepted(decision) == std::vector<std::string>{"B-marathon"});
    CHECK_THAT(Reasons(decision, "C-marathon"), Catch::Contains("has GPUs of model Tesla V100-PCIE-32GB"));
    CHECK(decision.ranked[0].target.options.at("gpu_attribute") == "gpu_model");
}

TEST_CASE("container GPUs: without monitoring the catalogue's declared GPUs decide", "[placement][filter]") {
    SyntheticWorld world({}, false);
    const auto decision = world.Place(MarathonSpec(2, "V100"));
    REQUIRE(Accepted(decision) == std::vector<std::string>{"C-marathon"});  // declares 4 V100s
    CHECK_THAT(
        Reasons(decision, "B-marathon"),
        Catch::Contains("needs GPU model V100; this site does not publish its GPU models")
    );
    const auto too_many = world.Place(MarathonSpec(5, "V100"));
    CHECK_THAT(Reasons(too_many, "C-marathon"), Catch::Contains("needs 5 GPUs of model V100, has 4 in total"));
    CHECK_THAT(decision.ToJson().dump(), Catch::Contains("no monitoring is configured"));
}

TEST_CASE("live CPUs and memory are checked where the feed knows them", "[placement][filter]") {
    SyntheticWorld world;
    auto spec = MarathonSpec(0, "", 100);  // 100 instances × 1 CPU; site-b has 64 free
    const auto decision = world.Place(spec);
    CHECK_THAT(Reasons(decision, "B-marathon"), Catch::Contains("needs 100 CPUs, has 64 free (live)"));
}

TEST_CASE("a site the monitoring reports down is rejected in gpu-aware mode only", "[placement][filter]") {
    SyntheticWorld world;
    CHECK_THAT(Reasons(world.Place(BatchSpec(1, "A100")), "E-slurm"), Catch::Contains("is down"));
    placement::PlacementOptions indigo;
    indigo.mode = placement::PlacementMode::kIndigo;
    SyntheticWorld old_style(indigo);
    const auto decision = old_style.Place(BatchSpec(1, "A100"));
    // The original has no health filter; its ranker then gives no rank to a service without targets.
    CHECK_THAT(Reasons(decision, "E-slurm"), Catch::Contains("the indigo ranker does not rank it"));
}

TEST_CASE("Slurm batch jobs: GPU model from the catalogue, partition passed to the connector", "[placement][filter]") {
    SyntheticWorld world({}, false);
    const auto decision = world.Place(BatchSpec(2, "a100"));
    REQUIRE(Accepted(decision) == std::vector<std::string>{"E-slurm"});
    const auto& target = decision.ranked[0].target;
    CHECK(target.kind == connectors::TargetKind::kSlurm);
    CHECK(target.options.at("partition") == "gpu");
    CHECK(target.project == "research");
    CHECK(decision.ranked[0].endpoint.at("deploymentType") == "QCG");  // the original's IaaSType
}

TEST_CASE("VM flavors: smallest fit, GPU model and memory, explicit instance type", "[placement][filter]") {
    SyntheticWorld world;
    auto spec = GpuVmSpec(1);
    spec.nodes[0].resources.os_version = "22.04";
    SECTION("any GPU: the smallest GPU flavor") {
        const auto decision = world.Place(spec);
        REQUIRE(Accepted(decision) == std::vector<std::string>{"A-nova"});
        CHECK(decision.ranked[0].placements.at("vm").flavor_name == "t4x1");
        // What admission claims the GPU class of: the flavor's GPUs, not the request's "any".
        const auto& chosen = decision.ranked[0].chosen_gpus.at("vm");
        CHECK(chosen.model == "Tesla T4");
        CHECK(chosen.vendor == "nvidia");
        CHECK(chosen.memory_mb == std::optional<std::uint64_t>(16384));
        CHECK(chosen.count == 1);
        CHECK(decision.ranked[0].placements.at("vm").image_name == "ubuntu-cuda");
        CHECK(decision.ranked[0].target.options.at("identity_provider") == "iam-a");
        CHECK(decision.ranked[0].target.options.at("network") == "net-a");
        CHECK(decision.ranked[0].target.project == "proj-a");
    }
    SECTION("model V100") {
        spec.nodes[0].resources.gpu.model = "V100";
        CHECK(world.Place(spec).ranked[0].placements.at("vm").flavor_name == "v100x1");
    }
    SECTION("model A100 is nowhere") {
        spec.nodes[0].resources.gpu.model = "A100";
        CHECK_THAT(
            Reasons(world.Place(spec), "A-nova"),
            Catch::Contains("no flavor with 1 GPU has GPU model A100 (offered: Tesla T4, Tesla V100-PCIE-32GB)")
        );
    }
    SECTION("vendor") {
        spec.nodes[0].resources.gpu.vendor = "amd";
        CHECK_THAT(Reasons(world.Place(spec), "A-nova"), Catch::Contains("has vendor amd (offered: nvidia)"));
    }
    SECTION("GPU memory, from the flavor or the model name") {
        spec.nodes[0].resources.gpu.memory_mb = 20000;
        CHECK(world.Place(spec).ranked[0].placements.at("vm").flavor_name == "v100x1");
    }
    SECTION("CPUs beyond every GPU flavor") {
        spec.nodes[0].resources.cpus = 32;
        CHECK_THAT(
            Reasons(world.Place(spec), "A-nova"),
            Catch::Contains("no flavor with the GPUs asked for has 32 vCPUs (the most is 16, in v100x2)")
        );
    }
    SECTION("explicit instance type") {
        spec.nodes[0].resources.instance_type = "v100x2";
        CHECK(world.Place(spec).ranked[0].placements.at("vm").flavor_name == "v100x2");
    }
}

TEST_CASE("VM images: name and tag, CUDA minimum, GPU driver, IM URIs", "[placement][filter]") {
    SyntheticWorld world;
    tosca::DeploymentSpec spec;
    spec.nodes.push_back(VmNode("vm", 1, 1024, 0));
    auto& wish = spec.nodes[0].resources;
    SECTION("name with tag") {
        wish.image = "ubuntu:20.04";
        CHECK(world.Place(spec).ranked[0].placements.at("vm").image_id == "i1");
    }
    SECTION("unknown name alone fails") {
        wish.image = "debian";
        CHECK_THAT(Reasons(world.Place(spec), "A-nova"), Catch::Contains("has no image named 'debian'"));
    }
    SECTION("CUDA is a minimum") {
        wish.cuda_support = true;
        wish.cuda_min_version = "11.8";
        CHECK(world.Place(spec).ranked[0].placements.at("vm").image_id == "i2");
        wish.cuda_min_version = "12.10";
        CHECK_THAT(
            Reasons(world.Place(spec), "A-nova"),
            Catch::Contains("no image has CUDA >= 12.10 (images here: ubuntu-cuda, ubuntu:20.04)")
        );
    }
    SECTION("GPU driver version prefix") {
        wish.gpu_driver = "535";
        CHECK(world.Place(spec).ranked[0].placements.at("vm").image_id == "i2");
        wish.gpu_driver = "470";
        CHECK(world.Place(spec).ranked.empty());
    }
    SECTION("an IM image URI is taken as is") {
        wish.image = "ost://keystone.a.test/abc";
        CHECK(world.Place(spec).ranked[0].placements.at("vm").image_id == "ost://keystone.a.test/abc");
    }
}

TEST_CASE("VM sites: elastic clusters need public IPs, volume types must exist", "[placement][filter]") {
    SyntheticWorld world;
    auto spec = GpuVmSpec(0);
    spec.nodes[0].resources = {};
    tosca::NodeSpec cluster;
    cluster.name = "lrms";
    cluster.type = "tosca.nodes.indigo.ElasticCluster";
    cluster.type_chain = {cluster.type, "tosca.nodes.Root"};
    tosca::NodeSpec volume;
    volume.name = "disk";
    volume.type = "tosca.nodes.indigo.BlockStorage";
    volume.type_chain = {volume.type, "tosca.nodes.BlockStorage", "tosca.nodes.Root"};
    volume.properties = {{"type", "nvme"}};
    spec.nodes.push_back(cluster);
    spec.nodes.push_back(volume);
    const std::string reasons = Reasons(world.Place(spec), "A-nova");
    CHECK_THAT(reasons, Catch::Contains("cannot assign public IPs, which an elastic cluster needs"));
    CHECK_THAT(reasons, Catch::Contains("has no volume type 'nvme' (offers: ssd)"));
}

TEST_CASE("identity: a site must trust the user's issuer", "[placement][filter]") {
    SyntheticWorld world;
    placement::PlacementRequest request;
    const auto spec = GpuVmSpec(1);
    request.spec = &spec;
    request.requester = {"https://aai.egi.eu/auth/realms/egi", "bob", "g", ""};
    const auto decision = world.placer->Place(request).value();
    CHECK_THAT(
        Reasons(decision, "A-nova"),
        Catch::Contains("does not accept users of https://aai.egi.eu/auth/realms/egi (it trusts: https://iam.test/)")
    );
}

// The placer checks each distinct list of trusted issuers once per placement (SiteUniverse):
// sites sharing a list, sites with another list and sites without IAM must still each get their
// own answer, trailing '/' ignored on both sides.
TEST_CASE("identity: every site answers for its own list of issuers", "[placement][filter]") {
    SyntheticWorld world;
    const auto spec = GpuVmSpec(1);
    placement::PlacementRequest request;
    request.spec = &spec;
    const auto place = [&](const std::string& issuer) {
        request.requester = {issuer, "bob", "g", ""};
        return world.placer->Place(request).value();
    };
    for (const auto& decision : {place("https://iam.test"), place("https://iam.test//")}) {
        for (const char* service : {"A-nova", "B-marathon", "C-marathon", "D-marathon", "E-slurm"}) {
            CHECK_THAT(Reasons(decision, service), !Catch::Contains("does not accept users"));
        }
    }
    const auto egi = place("https://aai.egi.eu/auth/realms/egi");
    for (const char* service : {"A-nova", "B-marathon", "C-marathon", "D-marathon"}) {
        CHECK_THAT(
            Reasons(egi, service), Catch::Contains("does not accept users of https://aai.egi.eu/auth/realms/egi")
        );
    }
    CHECK_THAT(Reasons(egi, "E-slurm"), !Catch::Contains("does not accept users"));  // iam_enabled: false
}

TEST_CASE("placement policies: named site, region, service", "[placement][filter]") {
    SyntheticWorld world({}, false);
    auto spec = MarathonSpec(1);
    SECTION("a named site") {
        spec.policies.push_back({"p", "tosca.policies.indigo.Placement", "", "", "site-c", "", {}});
        const auto decision = world.Place(spec);
        REQUIRE(Accepted(decision) == std::vector<std::string>{"C-marathon"});
        CHECK_THAT(
            Reasons(decision, "B-marathon"), Catch::Contains("is not the site named by the placement policy (site-c)")
        );
    }
    SECTION("a region nobody has") {
        spec.policies.push_back({"p", "tosca.policies.indigo.SlaPlacement", "sb", "eu-south", "", "", {}});
        CHECK_THAT(
            Reasons(world.Place(spec), "B-marathon"), Catch::Contains("the placement policy asks for region 'eu-south'")
        );
    }
    SECTION("an ignored policy type is noted") {
        spec.policies.push_back({"scale", "tosca.policies.Scaling", "", "", "", "", {}});
        const auto decision = world.Place(spec);
        CHECK(
            std::find(
                decision.notes.begin(),
                decision.notes.end(),
                "placement policy scale of type tosca.policies.Scaling is ignored"
            ) != decision.notes.end()
        );
    }
}

TEST_CASE("a request without a spec is an error, not a crash", "[placement]") {
    SyntheticWorld world;
    placement::PlacementRequest request;
    auto result = world.placer->Place(request);
    REQUIRE_FALSE(result);
    CHECK(result.error().code == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace orch::test
