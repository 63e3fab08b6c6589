// site-sim --state-file: a site started again on its journal holds what it held (the self-healing
// e2e test kills a site and needs it back with the old workload), and a write cut by the kill
// does not stop the rest from being replayed.
#include "sim_test_util.hpp"

#include <common/json.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>
#include <sim/site_journal.hpp>
#include <sim/site_sim.hpp>

#include <filesystem>
#include <fstream>

using orch::Json;
using orch::sim::SimApi;
using orch::sim::test::Call;

namespace {

Json App(const std::string& id) {
    return {
        {"id", id},
        {"instances", 1},
        {"cpus", 0.5},
        {"mem", 256.0},
        {"container", {{"type", "DOCKER"}, {"docker", {{"image", "nginx"}}}}}};
}

// A site on the journal at `path`, as site-sim --state-file starts one.
std::unique_ptr<orch::sim::SiteSim> SiteOn(const std::string& path) {
    auto site = orch::sim::test::StillSite();
    auto journal = orch::sim::SiteJournal::Open(path);
    REQUIRE(journal);
    site->AttachJournal(std::move(*journal));
    return site;
}

int AppStatus(orch::sim::SiteSim& site, const std::string& id) {
    return Call(site, SimApi::kMarathon, "GET", "/v2/apps" + id).status;
}

struct TempFile {
    std::string path = (std::filesystem::temp_directory_path() / ("site-journal-" + orch::RandomUuid())).string();
    ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("a site started again on its journal comes back with its workload", "[sim][journal]") {
    const TempFile file;
    {
        auto site = SiteOn(file.path);
        REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", App("/kept/app")).status == 201);
        REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", App("/gone/app")).status == 201);
        REQUIRE(Call(*site, SimApi::kMarathon, "DELETE", "/v2/apps/gone/app?force=true").status < 300);
        CHECK(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", Json{{"id", "/bad"}}).status == 422);
    }
    auto again = SiteOn(file.path);
    CHECK(AppStatus(*again, "/kept/app") == 200);
    CHECK(AppStatus(*again, "/gone/app") == 404);  // the delete is replayed too
    CHECK(AppStatus(*again, "/bad") == 404);       // refused writes are not kept

    SECTION("without a journal a new site is empty") {
        auto fresh = orch::sim::test::StillSite();
        CHECK(AppStatus(*fresh, "/kept/app") == 404);
    }
    SECTION("no credentials reach the file") {
        auto site = SiteOn(file.path);
        auto request = orch::sim::MakeSimRequest("POST", "/v2/apps", App("/secret/app").dump());
        request.headers.emplace_back("Authorization", "Bearer s3cr3t-token");
        REQUIRE(site->Handle(SimApi::kMarathon, request).status == 201);
        std::ifstream in(file.path);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(text.find("/secret/app") != std::string::npos);
        CHECK(text.find("s3cr3t-token") == std::string::npos);
    }
}

TEST_CASE("a write cut by a kill is skipped and the journal goes on after it", "[sim][journal]") {
    const TempFile file;
    {
        auto site = SiteOn(file.path);
        REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", App("/before/app")).status == 201);
    }
    std::ofstream(file.path, std::ios::app) << R"({"api":"marathon","method":"POST","path":"/v2/ap)";
    {
        auto site = SiteOn(file.path);
        CHECK(AppStatus(*site, "/before/app") == 200);
        REQUIRE(Call(*site, SimApi::kMarathon, "POST", "/v2/apps", App("/after/app")).status == 201);
    }
    auto again = SiteOn(file.path);
    CHECK(AppStatus(*again, "/before/app") == 200);
    CHECK(AppStatus(*again, "/after/app") == 200);
}
