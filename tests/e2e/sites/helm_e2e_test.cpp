// The corpus HelmChart template (helm_minio.yaml) through the real orchestrator binary on a
// Kubernetes site of site-sim: Flux v1 (as the original) and Flux v2, chosen by the catalogue's
// `flux_version`; CREATE_COMPLETE with the chart's node port in the output, and nothing left
// on the site after the delete.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

constexpr auto kTimeout = std::chrono::seconds(90);
constexpr char kHelmMinio[] = "indigo-dc-tosca-types/examples/helm_minio.yaml";

struct HelmSite {
    explicit HelmSite(const std::string& flux)
        : sim("speed: 20\n"),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig({SiteSpec{"SITE-H", &sim, "", 0, 1.0, false, false, true, flux}})
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    // The site's objects of `kind` (plural) whose name mentions the deployment.
    std::size_t Count(const std::string& kind, const std::string& id) const {
        std::size_t n = 0;
        for (const auto& o : orch::e2e::ProviderObjects(sim.Objects())) {
            n += o.rfind("kubernetes-" + kind + ":", 0) == 0 && o.find(id) != std::string::npos ? 1 : 0;
        }
        return n;
    }

    bool BecomesEmptyOf(const std::string& id) const {
        const auto deadline = std::chrono::steady_clock::now() + kTimeout;
        while (std::chrono::steady_clock::now() < deadline) {
            if (!orch::e2e::Mentions(orch::e2e::ProviderObjects(sim.Objects()), id)) {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        return false;
    }

    orch::test::TestDatabase db;
    SimProcess sim;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
};

void DeployAndDelete(const std::string& flux, const std::string& release_kind_extra) {
    HelmSite site(flux);
    const Json body = {{"template", orch::e2e::CorpusTemplate(kHelmMinio)}, {"parameters", Json::object()}};
    const auto res = site.api.Call("POST", "/deployments", body.dump());
    INFO(res.body);
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"].get<std::string>();
    const Json done = site.api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(done.dump());
    REQUIRE(done["status"] == "CREATE_COMPLETE");
    const std::string endpoint = done["outputs"].value("endpoint", "");
    CHECK(endpoint.rfind("http://127.0.0.1:3", 0) == 0);  // a node port (30000-32767)
    CHECK(site.Count("helmreleases", id) == 1);
    if (!release_kind_extra.empty()) {
        CHECK(site.Count(release_kind_extra, id) == 1);
    }
    CHECK(site.Count("services", id) == 1);  // the chart's, installed by the release
    const Json rejected = site.sim.Rejections();
    INFO(rejected.dump());
    CHECK(rejected.empty());

    REQUIRE(site.api.Call("DELETE", "/deployments/" + id).status == 204);
    CHECK(site.api.WaitFor(id, {"DELETE_COMPLETE", "DELETE_FAILED"}, kTimeout)["status"] == "DELETE_COMPLETE");
    CHECK(site.BecomesEmptyOf(id));
}

}  // namespace

TEST_CASE("the corpus Helm chart deploys as a Flux v1 HelmRelease and delete leaves nothing", "[e2e][sites][helm]") {
    DeployAndDelete("", "");
}

TEST_CASE("on a Flux v2 site the chart deploys with its HelmRepository source, both deleted", "[e2e][sites][helm]") {
    DeployAndDelete("v2", "helmrepositories");
}
