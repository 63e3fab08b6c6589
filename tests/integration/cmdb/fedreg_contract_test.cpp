// The Federation Registry source against recorded request/response pairs
// (fixtures/fedreg/*.json, written from the shapes in ../shared/reference/federation-registry.md),
// served over real HTTP: which requests it makes, and how each entity is mapped.
#include <cmdb/fedreg_source.hpp>

#include <catch2/catch.hpp>
#include <test_support/recorded_exchanges.hpp>

namespace orch::cmdb {
namespace {

constexpr const char* kIssuer = "https://iam.paas.example.org/";
constexpr const char* kToken = "the-users-token";

std::string Uid(const std::string& prefix, int n) {
    const std::string number = std::to_string(n);
    return prefix + std::string(32 - prefix.size() - number.size(), '0') + number;
}

struct Registry {
    std::shared_ptr<test::FixtureRoutes> routes = std::make_shared<test::FixtureRoutes>();
    std::unique_ptr<test::FixtureHttpServer> server;
    std::unique_ptr<http::Client> http = std::move(http::MakeClient({})).value();
    ManualClock clock{std::chrono::system_clock::time_point{} + std::chrono::hours(1000)};
    std::unique_ptr<FedRegSource> source;

    explicit Registry(FedRegOptions options = {}) {
        test::ServeRecordedExchanges(*routes, test::SourceDir() + "/tests/integration/cmdb/fixtures/fedreg");
        server = std::make_unique<test::FixtureHttpServer>(routes);
        options.url = server->url() + "/api/v1/";
        source = std::make_unique<FedRegSource>(*http, options, clock);
    }
};

const SlaTarget* TargetOf(const SlaSet& slas, const std::string& sla, const std::string& service, const char* type) {
    const SlaService* entry = slas.FindSlaService(sla, service);
    if (entry == nullptr) {
        return nullptr;
    }
    for (const auto& target : entry->targets) {
        if (target.type == type) {
            return &target;
        }
    }
    return nullptr;
}

TEST_CASE("Federation Registry: the group's SLAs, quotas and usage become SLAs and targets", "[cmdb][fedreg]") {
    Registry registry;
    auto view = registry.source->ForCaller("deep-hdc", kIssuer, kToken);
    REQUIRE(view);
    CHECK(view->notes.empty());
    const SlaSet& slas = *view->slas;
    CHECK(slas.customer == "deep-hdc");
    // Compute services with a limit quota, each once, weight 1; CESGA's per-user-only project is not offered.
    REQUIRE(slas.preferences.size() == 1);
    CHECK(slas.preferences[0].service_type == "compute");
    std::vector<std::string> offered;
    for (const auto& priority : slas.preferences[0].priority) {
        offered.push_back(priority.service_id);
        CHECK(priority.sla_id == Uid("bc", 1));
        CHECK(priority.weight == 1.0);
    }
    CHECK(offered == std::vector<std::string>{Uid("ad", 1), Uid("ad", 2), Uid("ad", 3)});
    // One entry per SLA; the first spans two providers, so its provider comes from the catalogue.
    REQUIRE(slas.slas.size() == 2);
    CHECK(slas.slas[0].id == Uid("bc", 1));
    CHECK(slas.slas[0].provider.empty());
    CHECK(slas.slas[0].start_date == "2025-01-01");
    CHECK(slas.slas[0].end_date == "2026-12-31");
    CHECK(slas.slas[1].provider == Uid("aa", 3));
    // RegionOne: limit 200 cores, 32 per user, 48 in use as the site reports.
    const auto* cores = TargetOf(slas, Uid("bc", 1), Uid("ad", 1), "num_cpus");
    REQUIRE(cores != nullptr);
    CHECK(cores->restrictions.total_limit == 200.0);
    CHECK(cores->restrictions.user_limit == 32.0);
    CHECK(cores->reported_usage == 48.0);
    const auto* ram = TargetOf(slas, Uid("bc", 1), Uid("ad", 2), "mem_size");
    REQUIRE(ram != nullptr);
    CHECK(ram->restrictions.total_limit == 262144.0);
    CHECK(ram->reported_usage == 200000.0);
    CHECK(TargetOf(slas, Uid("bc", 1), Uid("ad", 2), "instances")->restrictions.user_limit == 4.0);
    // IFCA: cores -1 is unlimited (no target), the other numbers are limits.
    CHECK(TargetOf(slas, Uid("bc", 1), Uid("ad", 3), "num_cpus") == nullptr);
    CHECK(TargetOf(slas, Uid("bc", 1), Uid("ad", 3), "instances")->restrictions.total_limit == 20.0);
    // Network, block-storage and object-store quotas are not placement's.
    CHECK(slas.FindSlaService(Uid("bc", 1), Uid("ae", 1)) == nullptr);
    CHECK(slas.FindSlaService(Uid("bc", 1), Uid("b0", 1)) == nullptr);
    CHECK(TargetOf(slas, Uid("bc", 2), Uid("ad", 4), "num_cpus")->restrictions.user_limit == 8.0);
}

TEST_CASE("Federation Registry: one projects read per provider and region, with the user's token", "[cmdb][fedreg]") {
    Registry registry;
    REQUIRE(registry.source->ForCaller("deep-hdc", kIssuer, kToken));
    const auto requests = registry.routes->Requests();
    std::vector<std::string> seen;
    for (const auto& request : requests) {
        CHECK(request.Header("Authorization") == std::string("Bearer ") + kToken);
        const auto query = test::DecodeQuery(request.query);
        CHECK(query.at("with_conn") == "true");
        seen.push_back(request.path + (query.count("region_name") != 0 ? " " + query.at("region_name") : ""));
    }
    CHECK(
        seen ==
        std::vector<std::string>{
            "/api/v1/user_groups/",
            "/api/v1/flavors/",
            "/api/v1/images/",
            "/api/v1/projects/ RegionOne",
            "/api/v1/projects/ RegionTwo",
            "/api/v1/projects/ tier1"}
    );
    CHECK(test::DecodeQuery(requests[0].query).at("idp_endpoint") == kIssuer);
    CHECK(test::DecodeQuery(requests[0].query).at("provider_status") == "active");
    CHECK(test::DecodeQuery(requests[3].query).at("user_group_uid") == Uid("bb", 1));
}

TEST_CASE(
    "Federation Registry: providers, regions, flavors, images, networks and IdPs map to the catalogue", "[cmdb][fedreg]"
) {
    Registry registry;
    REQUIRE(registry.source->ForCaller("deep-hdc", kIssuer, kToken));
    auto view = registry.source->Load({});
    REQUIRE(view);
    const Catalogue& catalogue = *view->catalogue;
    CHECK(catalogue.providers().size() == 2);
    const Provider* recas = catalogue.FindProvider(Uid("aa", 1));
    REQUIRE(recas != nullptr);
    CHECK(recas->name == "RECAS-BARI");
    REQUIRE(recas->services.size() == 2);

    const Service* one = catalogue.FindService(Uid("ad", 1));
    REQUIRE(one != nullptr);
    CHECK(one->provider_id == Uid("aa", 1));
    CHECK(one->kind == ServiceKind::kOpenStack);
    CHECK(one->region == "RegionOne");
    CHECK(one->endpoint == "https://keystone.recas.example.org:5000/v3");  // Keystone, not Nova
    CHECK(one->hostname == "keystone.recas.example.org");
    REQUIRE(one->supported_idps.size() == 1);
    CHECK(one->supported_idps[0].name == "deep-iam");
    CHECK(one->supported_idps[0].issuer == kIssuer);
    CHECK(one->idp_protocol == "openid");
    const Tenant* tenant = one->TenantFor("deep-hdc");
    REQUIRE(tenant != nullptr);
    CHECK(tenant->tenant_id == "4b2f0e6c9d8a4f1b8c7e6d5a4b3c2d1e");
    CHECK(tenant->tenant_name == "deep-hdc");
    REQUIRE(tenant->flavors.size() == 2);  // m1.medium was listed twice
    CHECK(tenant->flavors[0].name == "m1.medium");
    CHECK(tenant->flavors[0].flavor_id == "1741c1a1-e421-4b79-a0f8-f949aa0df52c");
    CHECK(tenant->flavors[0].ram_mb == 4096);
    CHECK(tenant->flavors[0].gpus == 0);
    CHECK(tenant->flavors[1].name == "g1.t4x1");
    CHECK(tenant->flavors[1].gpus == 1);
    CHECK(tenant->flavors[1].gpu_vendor == "NVIDIA");
    CHECK(tenant->flavors[1].gpu_model == "Tesla T4");
    CHECK(tenant->flavors[1].vcpus == 8);
    CHECK(tenant->flavors[1].disk_gb == 100);
    REQUIRE(tenant->images.size() == 2);
    CHECK(tenant->images[0].image_id == "b81e0696-9db4-4052-ae2a-1640be790251");
    CHECK(tenant->images[0].os_type == "Linux");
    CHECK(tenant->images[0].distribution == "ubuntu");
    CHECK(tenant->images[0].version == "22.04");
    CHECK(tenant->images[0].cuda_support);
    CHECK(tenant->images[0].gpu_driver);
    CHECK(tenant->images[1].os_type.empty());
    CHECK_FALSE(tenant->images[1].cuda_support);
    // The region's default networks only (public_net_r2 is RegionTwo's).
    CHECK(tenant->public_network_name == "public_net");
    CHECK(tenant->private_network_name == "deep-hdc-net");
    CHECK(tenant->proxy_host == "bastion.recas.example.org:22");
    CHECK(tenant->proxy_user == "cloudadm");

    const Service* two = catalogue.FindService(Uid("ad", 2));
    REQUIRE(two != nullptr);
    CHECK(two->region == "RegionTwo");
    CHECK(two->endpoint == "https://keystone-r2.recas.example.org:5000/v3");
    const Tenant* tenant_two = two->TenantFor("deep-hdc");
    REQUIRE(tenant_two != nullptr);
    // The project's reply lists the public m1.medium here too (FR does not filter public items by
    // region), but the registry's flavors list it on RegionOne's compute service only.
    REQUIRE(tenant_two->flavors.size() == 1);
    CHECK(tenant_two->flavors[0].name == "g2.a100x2");
    CHECK(tenant_two->flavors[0].gpus == 2);
    REQUIRE(tenant_two->images.size() == 1);
    CHECK(tenant_two->images[0].name == "ubuntu-22.04-cuda");
    CHECK(tenant_two->public_network_name == "public_net_r2");
    CHECK(tenant_two->private_network_name.empty());

    // FRLIB shapes (is_shared, overbooking fields, public nested region) read the same way.
    const Service* ifca = catalogue.FindService(Uid("ad", 3));
    REQUIRE(ifca != nullptr);
    CHECK(ifca->region == "tier1");
    CHECK(ifca->is_public);
    CHECK(ifca->supported_idps.at(0).name == "ifca-iam");
    REQUIRE(ifca->TenantFor("deep-hdc") != nullptr);
    CHECK(ifca->TenantFor("deep-hdc")->flavors.at(0).name == "cm4.large");
    CHECK(ifca->TenantFor("deep-hdc")->images.at(0).name == "ubuntu-22.04");
}

TEST_CASE(
    "Federation Registry: without the flavors list, public items stay in every region with a note", "[cmdb][fedreg]"
) {
    Registry registry;
    registry.routes->Fail("/api/v1/flavors/", 500);
    auto view = registry.source->ForCaller("deep-hdc", kIssuer, kToken);
    REQUIRE(view);
    REQUIRE(view->notes.size() == 1);
    CHECK_THAT(view->notes[0], Catch::Contains("flavors and images not split by region"));
    const Service* two = registry.source->Load({})->catalogue->FindService(Uid("ad", 2));
    REQUIRE(two != nullptr);
    CHECK(two->TenantFor("deep-hdc")->flavors.size() == 2);
}

TEST_CASE("Federation Registry: answers are cached per group and the catalogue keeps its objects", "[cmdb][fedreg]") {
    Registry registry;
    REQUIRE(registry.source->ForCaller("deep-hdc", kIssuer, kToken));
    const auto first = registry.source->Load({});
    const std::size_t calls = registry.routes->Requests().size();
    REQUIRE(registry.source->ForCaller("deep-hdc", kIssuer, kToken));
    CHECK(registry.routes->Requests().size() == calls);
    CHECK(registry.source->Load({})->catalogue == first->catalogue);
    registry.clock.Advance(std::chrono::minutes(6));  // past the ttl: read again, a new catalogue version
    REQUIRE(registry.source->ForCaller("deep-hdc", kIssuer, kToken));
    CHECK(registry.routes->Requests().size() == 2 * calls);
    CHECK(registry.source->Load({})->catalogue != first->catalogue);
}

TEST_CASE("Federation Registry: an unknown group is not found, an anonymous reply is refused", "[cmdb][fedreg]") {
    Registry registry;
    auto unknown = registry.source->ForCaller("nobody", kIssuer, kToken);
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().code == ErrorCode::kNotFound);
    CHECK(unknown.error().message == "Error fetching SLA for customer nobody from the Federation Registry.");
    // No token, no issuer (auth disabled): FR gives its public schemas, which carry no numbers.
    auto anonymous = registry.source->ForCaller("deep-hdc", "", "");
    REQUIRE_FALSE(anonymous);
    CHECK(anonymous.error().code == ErrorCode::kUnavailable);
    CHECK_THAT(anonymous.error().message, Catch::Contains("public schema"));
}

TEST_CASE(
    "Federation Registry: a refused token is said, and a cached copy is used when it is refused later", "[cmdb][fedreg]"
) {
    Registry registry;
    registry.routes->Fail("/api/v1/user_groups/", 403);
    auto refused = registry.source->ForCaller("deep-hdc", kIssuer, kToken);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kUnavailable);
    CHECK_THAT(refused.error().message, Catch::Contains("refused the user's token (HTTP 403)"));
    CHECK_THAT(refused.error().message, !Catch::Contains(kToken));
    registry.routes->Fail("/api/v1/user_groups/", 0);
    REQUIRE(registry.source->ForCaller("deep-hdc", kIssuer, kToken));
    registry.clock.Advance(std::chrono::minutes(6));
    registry.routes->Fail("/api/v1/user_groups/", 401);
    auto stale = registry.source->ForCaller("deep-hdc", kIssuer, kToken);
    REQUIRE(stale);
    REQUIRE(stale->notes.size() == 1);
    CHECK_THAT(stale->notes[0], Catch::Contains("using the SLAs read 6 min ago"));
    CHECK(registry.source->Load({})->catalogue->service_count() == 3);
}

TEST_CASE("Federation Registry: replies and project reads are bounded", "[cmdb][fedreg]") {
    SECTION("a reply larger than the limit is refused") {
        FedRegOptions options;
        options.max_response_bytes = 4096;
        Registry registry(options);
        auto view = registry.source->ForCaller("deep-hdc", kIssuer, kToken);
        REQUIRE_FALSE(view);
        CHECK(view.error().code == ErrorCode::kUnavailable);
    }
    SECTION("projects beyond max_projects are left out with a note") {
        FedRegOptions options;
        options.max_projects = 1;
        Registry registry(options);
        auto view = registry.source->ForCaller("deep-hdc", kIssuer, kToken);
        REQUIRE(view);
        REQUIRE(view->notes.size() == 1);
        CHECK_THAT(view->notes[0], Catch::Contains("2 projects of group deep-hdc were not read"));
        CHECK(registry.routes->Requests().size() == 4);
        CHECK(registry.source->Load({})->catalogue->service_count() == 1);
    }
}

}  // namespace
}  // namespace orch::cmdb
