// The catalogue: CMDB v1 wire format (served in-process from the fixtures), the local file
// format, caching and the fallback to the last good copy.
#include <cmdb/cmdb_v1_source.hpp>
#include <cmdb/file_catalogue_source.hpp>
#include <cmdb/wire.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/test_env.hpp>

namespace orch::cmdb {
namespace {

const std::string kRecas = "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b";

struct V1World {
    std::shared_ptr<test::FixtureRoutes> routes = std::make_shared<test::FixtureRoutes>();
    test::FixtureClient http{routes};
    ManualClock clock{std::chrono::system_clock::time_point(std::chrono::hours(1000))};
    CmdbV1Source source{http, CmdbV1Options{"http://cmdb.test/cmdb/v1"}, clock};
    V1World() { routes->Mount("/cmdb/v1", test::SharedDir() + "/fixtures/cmdb/v1"); }
};

TEST_CASE("CMDB v1: providers, services, projects, flavors and images from the wire format", "[cmdb]") {
    V1World world;
    auto view = world.source.Load({"RECAS-BARI", "INFN-CNAF"});
    REQUIRE(view);
    CHECK(view->notes.empty());
    const auto& catalogue = *view->catalogue;
    const Service* nova = catalogue.FindService(kRecas);
    REQUIRE(nova != nullptr);
    CHECK(nova->kind == ServiceKind::kOpenStack);
    CHECK(nova->region == "RegionOne");
    CHECK(nova->idp_protocol == "openid");
    CHECK(nova->supported_idps.at(0).issuer == "https://iam.paas.example.org/");
    const Tenant* tenant = nova->TenantFor("deep-hdc");
    REQUIRE(tenant != nullptr);
    CHECK(tenant->tenant_name == "DEEP");
    CHECK(tenant->flavors.size() == 5);
    CHECK(nova->TenantFor("ml-lab")->flavors.size() == 3);
    const auto v100 = std::find_if(tenant->flavors.begin(), tenant->flavors.end(), [](const Flavor& f) {
        return f.name == "g2.v100x2";
    });
    REQUIRE(v100 != tenant->flavors.end());
    CHECK(v100->gpus == 2);
    CHECK(v100->ram_mb == 122880);
    CHECK(v100->gpu_model == "Tesla V100-PCIE-32GB");
    const Service* marathon = catalogue.FindService("INFN-CNAF_bd78f67d-59fa-5307-b052-fee2b5446af9");
    REQUIRE(marathon != nullptr);
    CHECK(marathon->BoolProperty("gpu_support"));
    CHECK(marathon->parent_id == "INFN-CNAF_5e5a327e-24ed-5b10-b68a-a34f85e1b95b");
    CHECK(catalogue.FindProvider("RECAS-BARI")->name == "RECAS-BARI");
    for (const auto& request : world.routes->Requests()) {
        CHECK(request.Header("Authorization").empty());  // the CMDB read API is anonymous
        CHECK(request.query == "include_docs=true");
    }
}

TEST_CASE("CMDB v1: cached for the TTL, then the last good copy when the CMDB is down", "[cmdb]") {
    V1World world;
    REQUIRE(world.source.Load({"RECAS-BARI"}));
    const auto calls = world.routes->Requests().size();
    REQUIRE(world.source.Load({"RECAS-BARI"}));
    CHECK(world.routes->Requests().size() == calls);  // served from the cache

    world.routes->Fail("/cmdb", 503);
    world.clock.Advance(std::chrono::minutes(10));
    auto stale = world.source.Load({"RECAS-BARI"});
    REQUIRE(stale);
    REQUIRE(stale->catalogue->FindService(kRecas) != nullptr);
    REQUIRE(stale->notes.size() == 1);
    CHECK_THAT(
        stale->notes[0],
        Catch::Contains("CMDB unreachable (Error loading info for provider RECAS-BARI from CMDB: CMDB answered HTTP 503"
        )
    );
    CHECK_THAT(stale->notes[0], Catch::Contains("using the copy of RECAS-BARI from 10 min ago"));

    auto nothing = world.source.Load({"IFCA-LCG2"});
    REQUIRE_FALSE(nothing);
    CHECK(nothing.error().code == ErrorCode::kUnavailable);
}

TEST_CASE("CMDB v1: an unknown provider is a note, not an error", "[cmdb]") {
    V1World world;
    auto view = world.source.Load({"NO-SUCH-SITE", "CESGA"});
    REQUIRE(view);
    CHECK(view->catalogue->FindProvider("CESGA") != nullptr);
    REQUIRE(view->notes.size() == 1);
    CHECK_THAT(view->notes[0], Catch::Contains("Error loading info for provider NO-SUCH-SITE from CMDB"));
}

TEST_CASE("CMDB wire: wrappers and field errors", "[cmdb]") {
    CHECK(UnwrapRows(Json::object(), "tenant")->empty());  // "no tenants" mocks send {}
    auto doc = UnwrapDocument(Json{{"_id", "P1"}, {"data", {{"id", "476"}, {"name", "Site"}}}}, "provider");
    REQUIRE(doc);
    CHECK(doc->first == "P1");  // _id wins over data.id
    auto bad = ParseFlavor(Json{{"flavor_name", "x"}, {"num_gpus", "many"}}, "f1");
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("flavor 'f1': field 'num_gpus'"));
    CHECK_FALSE(UnwrapRows(Json{{"rows", Json::array({Json{{"id", "x"}}})}}, "flavor"));
    CHECK_FALSE(ParseService(Json{{"endpoint", "x"}}, "s"));  // service_type is required
    auto old_idps =
        ParseService(Json{{"service_type", "org.openstack.nova"}, {"supported_idps", {"https://iam/"}}}, "s");
    REQUIRE(old_idps);
    CHECK(old_idps->supported_idps.at(0).issuer == "https://iam/");
    CHECK(old_idps->iam_enabled);  // default true
}

TEST_CASE("local catalogue: the original's local CMDB file gives the same model as the REST API", "[cmdb]") {
    const ManualClock clock;
    auto source = FileCatalogueSource::Open(test::SharedDir() + "/fixtures/cmdb/local/cmdb.json", clock);
    REQUIRE(source);
    auto view = (*source)->Load({});
    REQUIRE(view);
    V1World world;
    auto remote = world.source.Load(
        {"RECAS-BARI",
         "IFCA-LCG2",
         "INFN-PADOVA",
         "CESGA",
         "INFN-CNAF",
         "UPV-GRyCAP",
         "CESNET-MCC",
         "PSNC",
         "AWS-EU-WEST-1"}
    );
    REQUIRE(remote);
    CHECK(view->catalogue->service_count() == remote->catalogue->service_count());
    for (const auto& provider : remote->catalogue->providers()) {
        for (const auto& service : provider->services) {
            const Service* local = view->catalogue->FindService(service.id);
            REQUIRE(local != nullptr);
            CHECK(local->kind == service.kind);
            CHECK(local->tenants.size() == service.tenants.size());
            for (const auto& tenant : service.tenants) {
                CHECK(local->TenantFor(tenant.user_group)->flavors.size() == tenant.flavors.size());
                CHECK(local->TenantFor(tenant.user_group)->images.size() == tenant.images.size());
            }
        }
    }
}

TEST_CASE("local catalogue: YAML errors name the file and the problem", "[cmdb]") {
    auto broken = ParseLocalCatalogueText("providers: [", "cat.yaml");
    REQUIRE_FALSE(broken);
    CHECK_THAT(broken.error().message, Catch::Contains("cat.yaml:"));
    auto orphan = ParseLocalCatalogueText("providers: []\ntenants: {t: {tenant: {service: nowhere}}}", "cat.yaml");
    REQUIRE_FALSE(orphan);
    CHECK_THAT(orphan.error().message, Catch::Contains("tenant 't' belongs to unknown service 'nowhere'"));
    auto duplicate = ParseLocalCatalogueText(
        "providers:\n- {id: A, services: {s: {service_type: org.openstack.nova}}}\n- {id: B, services: {s: "
        "{service_type: org.openstack.nova}}}",
        "cat.yaml"
    );
    REQUIRE_FALSE(duplicate);
    CHECK_THAT(duplicate.error().message, Catch::Contains("service id 's' appears twice"));
    CHECK_FALSE(ParseLocalCatalogueText("just text", "cat.yaml"));
    CHECK(ParseServiceKind("org.schedmd.slurm") == ServiceKind::kSlurm);
}

}  // namespace
}  // namespace orch::cmdb
