#include "sim_test_util.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <sim/site_sim.hpp>

using orch::Json;
using orch::sim::SimApi;
using orch::sim::test::BodyOf;
using orch::sim::test::Call;

namespace {

Json ReleaseV1(const Json& chart) {
    return {
        {"apiVersion", "helm.fluxcd.io/v1"},
        {"kind", "HelmRelease"},
        {"metadata", {{"name", "web"}}},
        {"spec", {{"releaseName", "web"}, {"chart", chart}, {"values", {{"service", {{"type", "NodePort"}}}}}}}};
}

Json Repository(const std::string& url) {
    return {
        {"apiVersion", "source.toolkit.fluxcd.io/v1beta2"},
        {"kind", "HelmRepository"},
        {"metadata", {{"name", "repo"}}},
        {"spec", {{"url", url}, {"interval", "10m"}}}};
}

const Json kChart = {{"repository", "https://charts.example.org"}, {"name", "nginx"}, {"version", "1.0.0"}};
const std::string kV1 = "/apis/helm.fluxcd.io/v1/namespaces/ns1/helmreleases";
const std::string kRepos = "/apis/source.toolkit.fluxcd.io/v1beta2/namespaces/ns1/helmrepositories";

std::unique_ptr<orch::sim::SiteSim> SiteWithNamespace() {
    auto site = orch::sim::test::StillSite();
    const Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ns1"}}}};
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", ns).status == 201);
    return site;
}

}  // namespace

TEST_CASE(
    "the Flux CRDs' validation: strict fields, required fields, chart sources, URLs, durations",
    "[sim][kubernetes][flux]"
) {
    auto site = SiteWithNamespace();
    Json unknown = ReleaseV1(kChart);
    unknown["spec"]["replicas"] = 2;
    const auto strict = Call(*site, SimApi::kKubernetes, "POST", kV1, unknown);
    CHECK(strict.status == 400);  // as fieldValidation=Strict: a decoding error naming the field
    CHECK(strict.body.find("replicas") != std::string::npos);
    Json no_version = kChart;
    no_version.erase("version");
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kV1, ReleaseV1(no_version)).status == 422);
    Json no_chart = ReleaseV1(kChart);
    no_chart["spec"].erase("chart");
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kV1, no_chart).status == 422);
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kRepos, Repository("ftp://charts.example.org")).status == 422);
    Json bad_interval = Repository("https://charts.example.org");
    bad_interval["spec"]["interval"] = "ten minutes";
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kRepos, bad_interval).status == 422);
    Json wrong_api = ReleaseV1(kChart);
    wrong_api["apiVersion"] = "helm.toolkit.fluxcd.io/v2beta1";
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kV1, wrong_api).status == 400);
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kV1, ReleaseV1(kChart)).status == 201);
    CHECK(Call(*site, SimApi::kKubernetes, "POST", kRepos, Repository("https://charts.example.org")).status == 201);
}

TEST_CASE(
    "a v1 HelmRelease is fetched, then released, and its chart's Service goes with it", "[sim][kubernetes][flux]"
) {
    auto site = SiteWithNamespace();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", kV1, ReleaseV1(kChart)).status == 201);
    site->AdvanceClock(1);
    Json release = BodyOf(Call(*site, SimApi::kKubernetes, "GET", kV1 + "/web"));
    CHECK(release["status"]["phase"] == "ChartFetched");
    site->AdvanceClock(1);
    release = BodyOf(Call(*site, SimApi::kKubernetes, "GET", kV1 + "/web"));
    CHECK(release["status"]["phase"] == "Succeeded");
    CHECK(release["status"]["releaseStatus"] == "deployed");
    CHECK(release["status"]["observedGeneration"] == 1);
    const auto services = BodyOf(Call(
        *site,
        SimApi::kKubernetes,
        "GET",
        "/api/v1/namespaces/ns1/services?labelSelector=app.kubernetes.io/instance=web"
    ));
    REQUIRE(services["items"].size() == 1);
    CHECK(services["items"][0]["metadata"]["name"] == "web-nginx");
    CHECK(services["items"][0]["spec"]["ports"][0]["nodePort"].get<int>() >= 30000);
    REQUIRE(Call(*site, SimApi::kKubernetes, "DELETE", kV1 + "/web").status == 200);
    CHECK(Call(*site, SimApi::kKubernetes, "GET", "/api/v1/namespaces/ns1/services/web-nginx").status == 404);
}
