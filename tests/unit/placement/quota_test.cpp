// Quotas: configured per group/user, and per service from SLA targets; usage from active deployments.
#include "synthetic_world.hpp"

#include <catch2/catch.hpp>

namespace orch::test {
namespace {

placement::PlacementOptions GroupGpuQuota(double gpus) {
    placement::PlacementOptions options;
    options.quotas.groups["g"].group.gpus = gpus;
    return options;
}

const placement::Requester kAlice{"https://iam.test/", "alice", "g", ""};
const placement::Requester kBob{"https://iam.test/", "bob", "g", ""};

TEST_CASE(
    "a group at its GPU quota is refused naming the quota; freeing a deployment lets the next through",
    "[placement][quota]"
) {
    SyntheticWorld world(GroupGpuQuota(4));
    world.usage.Put("d1", kBob, "B-marathon", {4, 8192, 4, 1});
    const auto refused = world.Place(MarathonSpec(1, "t4"));
    REQUIRE(refused.ranked.empty());
    const std::string message = refused.NoCandidateMessage();
    CHECK_THAT(
        message,
        Catch::Contains("quota exceeded: group 'g' may use 4 GPUs; 4 are in use by active deployments and this "
                        "deployment needs 1 more")
    );
    CHECK(
        std::find(
            refused.notes.begin(),
            refused.notes.end(),
            "quota exceeded: group 'g' may use 4 GPUs; 4 are in use by active deployments and this deployment needs 1 "
            "more"
        ) != refused.notes.end()
    );

    world.usage.Remove("d1");
    const auto accepted = world.Place(MarathonSpec(1, "t4"));
    REQUIRE_FALSE(accepted.ranked.empty());
    CHECK(accepted.ranked[0].target.service_id == "B-marathon");
}

TEST_CASE("a full quota may be waited for, a request over the quota itself may not", "[placement][quota][admission]") {
    SyntheticWorld world(GroupGpuQuota(4));
    world.usage.Put("d1", kBob, "B-marathon", {4, 8192, 4, 1});
    const auto full = world.Place(MarathonSpec(1, "t4"));
    REQUIRE(full.ranked.empty());
    CHECK(full.waitable);
    CHECK(full.quota_group == "g");
    CHECK(full.configured_quota.group.gpus == 4.0);

    world.usage.Remove("d1");
    const auto fits = world.Place(MarathonSpec(2, "t4"));
    REQUIRE_FALSE(fits.ranked.empty());
    CHECK_FALSE(fits.waitable);

    // The same 2 T4 GPUs (a site has 4 free) against a group limit of 1: only the quota refuses.
    SyntheticWorld small(GroupGpuQuota(1));
    const auto never = small.Place(MarathonSpec(2, "t4"));
    REQUIRE(never.ranked.empty());
    CHECK_THAT(never.NoCandidateMessage(), Catch::Contains("quota exceeded: group 'g' may use 1 GPUs"));
    CHECK_FALSE(never.waitable);
}

TEST_CASE("other groups' deployments do not count", "[placement][quota]") {
    SyntheticWorld world(GroupGpuQuota(4));
    world.usage.Put("d1", {"https://iam.test/", "carol", "other", ""}, "B-marathon", {4, 8192, 4, 1});
    CHECK_FALSE(world.Place(MarathonSpec(1, "t4")).ranked.empty());
}

TEST_CASE("the deployment being placed does not count against itself", "[placement][quota]") {
    SyntheticWorld world(GroupGpuQuota(1));
    world.usage.Put("self", kAlice, "", {1, 2048, 1, 1});
    const auto spec = MarathonSpec(1, "t4");
    placement::PlacementRequest request{&spec, kAlice, "self"};
    CHECK_FALSE(world.placer->Place(request).value().ranked.empty());
    request.deployment_id = "";
    CHECK(world.placer->Place(request).value().ranked.empty());
}

TEST_CASE("per-user quota counts only the user's deployments", "[placement][quota]") {
    placement::PlacementOptions options;
    options.quotas.defaults.user.instances = 2;
    SyntheticWorld world(options, false);
    world.usage.Put("d1", kAlice, "B-marathon", {1, 1024, 0, 2});
    world.usage.Put("d2", kBob, "B-marathon", {1, 1024, 0, 5});
    CHECK_THAT(
        world.Place(MarathonSpec(0), "alice").NoCandidateMessage(),
        Catch::Contains("quota exceeded: you may use 2 instances in group 'g'; 2 are in use")
    );
    CHECK(world.Place(MarathonSpec(0, "", 2), "carol").ranked.size() == 3);  // B, C and D run Marathon apps
}

TEST_CASE("SLA targets limit GPUs per service", "[placement][quota]") {
    SyntheticWorld world({}, false);
    world.usage.Put("d1", kBob, "C-marathon", {1, 1024, 2, 1});
    const auto decision = world.Place(MarathonSpec(1, "V100"));
    CHECK(decision.ranked.empty());
    CHECK_THAT(
        decision.NoCandidateMessage(),
        Catch::Contains(
            "site-c (marathon): quota exceeded: group 'g' may use 2 GPUs on this service (SLA sc); 2 are in use"
        )
    );
}

TEST_CASE("usage that cannot be read refuses quota-limited placements with the reason", "[placement][quota]") {
    SyntheticWorld world(GroupGpuQuota(4));
    world.usage.SetFailure("database unreachable");
    CHECK_THAT(
        world.Place(MarathonSpec(1, "t4")).NoCandidateMessage(),
        Catch::Contains("quota could not be checked: usage of active deployments is unavailable (database unreachable)")
    );
    placement::PlacementOptions off = GroupGpuQuota(4);
    off.quotas.enabled = false;
    SyntheticWorld unlimited(off);
    unlimited.usage.SetFailure("database unreachable");
    CHECK_FALSE(unlimited.Place(MarathonSpec(1, "t4")).ranked.empty());
}

TEST_CASE("RequestedResources sums count × per-instance needs", "[placement][quota]") {
    auto spec = MarathonSpec(2, "", 3);
    const auto totals = placement::RequestedResources(spec);
    CHECK(totals.gpus == 6);
    CHECK(totals.cpus == Approx(3));
    CHECK(totals.ram_mb == 3 * 2048);
    CHECK(totals.instances == 3);
}

}  // namespace
}  // namespace orch::test

namespace orch::test {
namespace {

TEST_CASE(
    "a GPU class covers its model, its aliases and, for a memory class, GPUs large enough", "[placement][gpu_class]"
) {
    const placement::GpuClass v100{"V100", {"Tesla V100-PCIE-32GB"}, "", std::nullopt};
    // The class's name covers the full model name; an alias covers the short request too.
    CHECK(placement::GpusOfClass(MarathonSpec(2, "Tesla V100-PCIE-32GB", 3), v100) == 6);
    CHECK(placement::GpusOfClass(MarathonSpec(1, "v100"), v100) == 1);
    CHECK(placement::GpusOfClass(MarathonSpec(1, "T4"), v100) == 0);
    CHECK(placement::GpusOfClass(MarathonSpec(1, "V1000"), v100) == 0);  // words, not substrings
    CHECK(placement::GpusOfClass(MarathonSpec(1, ""), v100) == 0);       // no model: no class
    CHECK(placement::GpusOfClass(MarathonSpec(0, "V100"), v100) == 0);

    const placement::GpuClass nvidia{"V100", {}, "NVIDIA", std::nullopt};
    tosca::GpuRequest amd{1, "AMD", "V100", std::nullopt};
    CHECK_FALSE(placement::GpuClassCovers(nvidia, amd));

    const placement::GpuClass large{">=32GB", {}, "", 32768};
    CHECK(placement::GpusOfClass(MarathonSpec(1, "Tesla V100-PCIE-32GB"), large) == 1);  // memory from the name
    CHECK(placement::GpusOfClass(MarathonSpec(1, "T4"), large) == 0);
    CHECK(placement::GpuClassCovers(large, tosca::GpuRequest{1, "", "", 40960}));
    CHECK_FALSE(placement::GpuClassCovers(large, tosca::GpuRequest{1, "", "", 16384}));
}

}  // namespace
}  // namespace orch::test

namespace orch::test {
namespace {

TEST_CASE(
    "a class limit of placement.quotas takes the SLA's declaration of that class; a request over it never fits",
    "[placement][quota][gpu_class]"
) {
    placement::PlacementOptions options;
    options.quotas.groups["g"].group.gpu_classes.push_back({{"volta", {}, "", std::nullopt}, 1});
    SyntheticWorld world(options, false);
    // Site C's SLA declares the class "volta" (its aliases name the V100 it has).
    Json slas = SyntheticSlas();
    slas["g"]["sla"][2]["services"][0]["targets"].push_back(
        {{"type", "num_gpus"},
         {"gpu_class", "volta"},
         {"gpu_aliases", {"Tesla V100-PCIE-32GB"}},
         {"restrictions", {{"total_limit", 8}}}}
    );
    world.placer.reset();
    world.slas = std::move(cmdb::FileSlaSource::FromJson(slas, "synthetic")).value();
    world.placer = std::make_unique<placement::DefaultPlacer>(
        *world.catalogue, *world.slas, *world.feed, world.usage, world.history, options, world.clock
    );

    const auto one = world.Place(MarathonSpec(1, "Tesla V100-PCIE-32GB"));
    REQUIRE_FALSE(one.ranked.empty());
    REQUIRE(one.configured_quota.group.gpu_classes.size() == 1);
    CHECK(
        one.configured_quota.group.gpu_classes[0].gpu_class.aliases == std::vector<std::string>{"Tesla V100-PCIE-32GB"}
    );
    CHECK(
        placement::GpusOfClass(
            MarathonSpec(1, "Tesla V100-PCIE-32GB"), one.configured_quota.group.gpu_classes[0].gpu_class
        ) == 1
    );

    const auto two = world.Place(MarathonSpec(2, "Tesla V100-PCIE-32GB"));
    CHECK(two.ranked.empty());
    CHECK_FALSE(two.waitable);
    CHECK_THAT(
        two.NoCandidateMessage(),
        Catch::Contains("quota exceeded: group 'g' may use 1 × volta and this deployment needs 2")
    );
    // Two T4s are not of the class: no class reason (whatever else refuses them).
    CHECK_THAT(world.Place(MarathonSpec(2, "Tesla T4")).NoCandidateMessage(), !Catch::Contains("× volta"));
}

}  // namespace
}  // namespace orch::test
