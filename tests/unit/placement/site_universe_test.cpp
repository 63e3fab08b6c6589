// The placer resolves a group's services once per (SLA set, catalogue version) and reuses that
// between placements: these tests change the catalogue or the SLAs between two placements and
// check that the second one sees the change (a stale universe would keep the old service,
// project or flavors, or point into freed providers).
#include "fixture_world.hpp"
#include "synthetic_world.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

namespace orch::test {
namespace {

class SwappableCatalogue : public cmdb::CatalogueSource {
   public:
    explicit SwappableCatalogue(std::vector<std::shared_ptr<const cmdb::Provider>> providers)
        : providers_(std::move(providers)) {}
    Result<cmdb::CatalogueView> Load(const std::vector<std::string>&) override {
        // A new Catalogue object each time over the held providers, as the CMDB source does.
        return cmdb::CatalogueView{std::make_shared<const cmdb::Catalogue>(providers_), {}};
    }
    std::string Url() const override { return {}; }
    std::vector<std::shared_ptr<const cmdb::Provider>> providers_;
};

class SwappableSlas : public cmdb::SlaSource {
   public:
    explicit SwappableSlas(std::shared_ptr<const cmdb::SlaSet> slas) : slas_(std::move(slas)) {}
    Result<cmdb::SlaView> ForGroup(const std::string&, const std::string&) override { return cmdb::SlaView{slas_, {}}; }
    std::string Url() const override { return {}; }
    std::shared_ptr<const cmdb::SlaSet> slas_;
};

class SwappableFeed : public monitoring::Feed {
   public:
    std::shared_ptr<const monitoring::Snapshot> Collect(const std::vector<std::string>&) override { return snapshot_; }
    std::string Url() const override { return {}; }
    std::string Kind() const override { return "static"; }
    std::shared_ptr<const monitoring::Snapshot> snapshot_ = std::make_shared<const monitoring::Snapshot>();
};

std::shared_ptr<const cmdb::SlaSet> SlasOf(const Json& root) {
    return std::make_shared<const cmdb::SlaSet>(cmdb::ParseSlamPreferences(root.at("g"), "g").value());
}

tosca::DeploymentSpec OneGpuVm() {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kVirtualMachines;
    spec.nodes.push_back(VmNode("vm", 4, 16384, 1));
    return spec;
}

struct World {
    SwappableCatalogue catalogue{cmdb::ParseLocalCatalogueText(kSyntheticCatalogue, "synthetic").value().providers()};
    SwappableSlas slas{SlasOf(SyntheticSlas())};
    SwappableFeed feed;
    placement::InMemoryUsageSource usage;
    placement::InMemorySiteHistory history;
    const ManualClock clock;
    placement::DefaultPlacer placer{catalogue, slas, feed, usage, history, {}, clock};

    placement::PlacementDecision Place(const tosca::DeploymentSpec& spec) {
        placement::PlacementRequest request;
        request.spec = &spec;
        request.requester = {"https://iam.test/", "alice", "g", ""};
        return placer.Place(request).value();
    }
    const placement::SiteVerdict& VerdictOf(const placement::PlacementDecision& decision, std::string_view service) {
        for (const auto& verdict : decision.verdicts) {
            if (verdict.service_id == service) {
                return verdict;
            }
        }
        throw std::runtime_error("no verdict for " + std::string(service));
    }
    // SITE-A (provider 0) re-read with its project's flavors replaced.
    void ReplaceSiteAFlavors(std::vector<cmdb::Flavor> flavors) {
        auto changed = std::make_shared<cmdb::Provider>(*catalogue.providers_.at(0));
        changed->services.front().tenants.front().flavors = std::move(flavors);
        catalogue.providers_[0] = changed;
    }
};

std::string ChosenFlavor(const placement::PlacementDecision& decision) {
    REQUIRE_FALSE(decision.ranked.empty());
    return decision.ranked.front().placements.at("vm").flavor_name;
}

}  // namespace

TEST_CASE("site universe: reused between placements while SLAs and catalogue stay", "[placement][universe]") {
    World world;
    const auto spec = OneGpuVm();
    CHECK(ChosenFlavor(world.Place(spec)) == "t4x1");
    CHECK(world.placer.universe_builds() == 2);  // the SLA services, then resolved in the catalogue
    CHECK(ChosenFlavor(world.Place(spec)) == "t4x1");
    CHECK(world.placer.universe_builds() == 2);
}

TEST_CASE("site universe: a re-read provider is seen by the next placement", "[placement][universe]") {
    World world;
    const auto spec = OneGpuVm();
    REQUIRE(ChosenFlavor(world.Place(spec)) == "t4x1");
    cmdb::Flavor only;
    only.flavor_id = "f9";
    only.name = "a40x1";
    only.vcpus = 8;
    only.ram_mb = 32768;
    only.disk_gb = 80;
    only.gpus = 1;
    only.gpu_vendor = "nvidia";
    only.gpu_model = "NVIDIA A40";
    world.ReplaceSiteAFlavors({only});
    CHECK(ChosenFlavor(world.Place(spec)) == "a40x1");
    CHECK(world.placer.universe_builds() == 3);  // resolved again; the SLA part is reused

    world.ReplaceSiteAFlavors({});
    const auto decision = world.Place(spec);
    CHECK(decision.ranked.empty());
    CHECK_FALSE(world.VerdictOf(decision, "A-nova").accepted);
}

TEST_CASE("site universe: a provider gone from the catalogue rejects its service", "[placement][universe]") {
    World world;
    const auto spec = OneGpuVm();
    REQUIRE(world.VerdictOf(world.Place(spec), "A-nova").accepted);
    world.catalogue.providers_.erase(world.catalogue.providers_.begin());
    const auto decision = world.Place(spec);
    const auto& verdict = world.VerdictOf(decision, "A-nova");
    CHECK_FALSE(verdict.accepted);
    CHECK(verdict.reasons.Texts() == std::vector<std::string>{"is not in the catalogue (CMDB)"});
}

TEST_CASE("site universe: a new monitoring snapshot is seen by the next placement", "[placement][universe]") {
    World world;
    const auto spec = OneGpuVm();
    REQUIRE(world.VerdictOf(world.Place(spec), "A-nova").accepted);
    auto down = std::make_shared<monitoring::Snapshot>();
    down->providers["SITE-A"].provider_id = "SITE-A";
    down->providers["SITE-A"].up = false;
    world.feed.snapshot_ = down;
    const auto decision = world.Place(spec);
    CHECK_THAT(AllReasons(world.VerdictOf(decision, "A-nova")), Catch::Contains("is down"));
    world.feed.snapshot_ = std::make_shared<const monitoring::Snapshot>();
    CHECK(world.VerdictOf(world.Place(spec), "A-nova").accepted);
}

// Sites with the same image list share one image choice per placement, but each must still get
// its own image (its own Glance id); a site whose list differs gets its own answer.
TEST_CASE("site universe: image choices shared by equal image lists stay per site", "[placement][universe]") {
    World world;
    Json slas = SyntheticSlas();
    auto& priorities = slas["g"]["preferences"][0]["preferences"][0]["priority"];
    auto& agreements = slas["g"]["sla"];
    auto add_site = [&](const std::string& suffix, const std::string& image_prefix, bool cuda) {
        auto provider = std::make_shared<cmdb::Provider>(*world.catalogue.providers_.at(0));
        provider->id += suffix;
        auto& service = provider->services.front();
        service.id += suffix;
        service.provider_id = provider->id;
        auto& tenant = service.tenants.front();
        tenant.service_id = service.id;
        for (auto& image : tenant.images) {
            image.image_id = image_prefix + image.image_id;
            image.cuda_support = image.cuda_support && cuda;
        }
        world.catalogue.providers_.push_back(provider);
        priorities.push_back({{"sla_id", "s" + suffix}, {"service_id", service.id}, {"weight", 0.1}});
        agreements.push_back(
            {{"id", "s" + suffix},
             {"customer", "g"},
             {"provider", provider->id},
             {"services", {{{"type", "computing"}, {"service_id", service.id}, {"targets", Json::array()}}}}}
        );
    };
    add_site("-2", "two-", true);     // same list as SITE-A, other ids
    add_site("-3", "three-", false);  // no CUDA image: another list
    world.slas.slas_ = SlasOf(slas);
    auto spec = OneGpuVm();
    spec.nodes.front().resources.cuda_support = true;
    const auto decision = world.Place(spec);
    std::map<std::string, std::string> image_of;
    for (const auto& candidate : decision.ranked) {
        image_of[candidate.target.service_id] = candidate.placements.at("vm").image_id;
    }
    CHECK(image_of["A-nova"] == "i2");
    CHECK(image_of["A-nova-2"] == "two-i2");
    CHECK(image_of.count("A-nova-3") == 0);
    CHECK_THAT(AllReasons(world.VerdictOf(decision, "A-nova-3")), Catch::Contains("no image has"));
}

// Ties go to the smaller service id whatever order SLAM lists the services in (the universe
// numbers the ids once; ranking compares those numbers).
TEST_CASE("site universe: ties broken by service id, not by SLAM order", "[placement][universe]") {
    World world;
    Json slas = SyntheticSlas();
    auto& priorities = slas["g"]["preferences"][0]["preferences"][0]["priority"];
    std::reverse(priorities.begin(), priorities.end());
    world.slas.slas_ = SlasOf(slas);
    const auto decision = world.Place(MarathonSpec(0));
    std::vector<std::string> order;
    for (const auto& candidate : decision.ranked) {
        order.push_back(candidate.target.service_id);
    }
    CHECK(order == std::vector<std::string>{"D-marathon", "B-marathon", "C-marathon"});
}

TEST_CASE("site universe: new SLAs change the services considered", "[placement][universe]") {
    World world;
    const auto spec = OneGpuVm();
    REQUIRE(world.Place(spec).verdicts.size() == 5);
    Json slas = SyntheticSlas();
    auto& priorities = slas["g"]["preferences"][0]["preferences"][0]["priority"];
    priorities.erase(priorities.begin());  // A-nova no longer offered to the group
    world.slas.slas_ = SlasOf(slas);
    const auto decision = world.Place(spec);
    CHECK(decision.verdicts.size() == 4);
    CHECK(decision.ranked.empty());
    CHECK_THROWS(world.VerdictOf(decision, "A-nova"));
}

}  // namespace orch::test
