#include "sim_test_util.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <sim/site_sim.hpp>

using orch::Json;
using orch::sim::SimApi;
using orch::sim::test::BodyOf;
using orch::sim::test::Call;

namespace {

Json Namespace(const std::string& name) {
    return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

Json PodTemplate(const std::string& app, const Json& resources, const std::string& restart) {
    return {
        {"metadata", {{"labels", {{"app", app}}}}},
        {"spec",
         {{"restartPolicy", restart},
          {"containers", {{{"name", app}, {"image", "busybox:1.36"}, {"resources", resources}}}}}}};
}

Json Deployment(const std::string& name, int replicas, const Json& resources = Json::object()) {
    return {
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"replicas", replicas},
          {"selector", {{"matchLabels", {{"app", name}}}}},
          {"template", PodTemplate(name, resources, "Always")}}}};
}

Json Job(const std::string& name, const Json& env = Json::array()) {
    Json tmpl = PodTemplate(name, Json::object(), "Never");
    if (!env.empty()) {
        tmpl["spec"]["containers"][0]["env"] = env;
    }
    return {
        {"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"metadata", {{"name", name}}},
        {"spec", {{"backoffLimit", 1}, {"template", tmpl}}}};
}

Json Get(orch::sim::SiteSim& site, const std::string& path) {
    auto r = Call(site, SimApi::kKubernetes, "GET", path);
    REQUIRE(r.status == 200);
    return BodyOf(r);
}

std::string ConditionStatus(const Json& object, const std::string& type) {
    for (const auto& c : object["status"].value("conditions", Json::array())) {
        if (c["type"] == type) {
            return c["status"];
        }
    }
    return "";
}

const std::string kDeployments = "/apis/apps/v1/namespaces/ns1/deployments";

}  // namespace

TEST_CASE("a Deployment rolls out: pods scheduled, started, conditions Available", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    auto created = Call(
        *site,
        SimApi::kKubernetes,
        "POST",
        kDeployments,
        Deployment("web", 2, {{"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}}})
    );
    REQUIRE(created.status == 201);
    const Json body = BodyOf(created);
    CHECK(body["metadata"]["generation"] == 1);
    CHECK_FALSE(body["metadata"]["uid"].get<std::string>().empty());
    CHECK(body["spec"]["strategy"]["type"] == "RollingUpdate");  // defaults applied

    Json d = Get(*site, kDeployments + "/web");
    CHECK(d["status"]["replicas"] == 2);
    CHECK(ConditionStatus(d, "Available") == "False");
    site->AdvanceClock(1.5);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    d = Get(*site, kDeployments + "/web");
    CHECK(d["status"]["availableReplicas"] == 2);
    CHECK(d["status"]["observedGeneration"] == 1);
    CHECK(ConditionStatus(d, "Available") == "True");
    const Json pods = Get(*site, "/api/v1/namespaces/ns1/pods?labelSelector=app%3Dweb")["items"];
    REQUIRE(pods.size() == 2);
    CHECK(pods[0]["status"]["phase"] == "Running");
    CHECK(pods[0]["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet");

    auto scaled = Call(*site, SimApi::kKubernetes, "PATCH", kDeployments + "/web/scale", {{"spec", {{"replicas", 1}}}});
    CHECK(scaled.status == 200);
    site->AdvanceClock(2);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    CHECK(Get(*site, kDeployments + "/web")["status"]["replicas"] == 1);
    CHECK(Get(*site, kDeployments + "/web")["metadata"]["generation"] == 2);
}

TEST_CASE("GPU pods that fit nowhere are Unschedulable with the scheduler's message", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    REQUIRE(
        Call(
            *site,
            SimApi::kKubernetes,
            "POST",
            kDeployments,
            Deployment("big", 1, {{"limits", {{"nvidia.com/gpu", 3}}}})
        ).status == 201
    );
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    const Json pod = Get(*site, "/api/v1/namespaces/ns1/pods")["items"][0];
    const Json scheduled = pod["status"]["conditions"][0];
    CHECK(scheduled["type"] == "PodScheduled");
    CHECK(scheduled["status"] == "False");
    CHECK(scheduled["reason"] == "Unschedulable");
    CHECK(scheduled["message"] == "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
    const Json events = Get(*site, "/api/v1/namespaces/ns1/events")["items"];
    REQUIRE_FALSE(events.empty());
    CHECK(events[0]["reason"] == "FailedScheduling");

    Json model = Deployment("model", 1, {{"limits", {{"nvidia.com/gpu", 1}}}});
    model["spec"]["template"]["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"}};
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", kDeployments, model).status == 201);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    const Json pods = Get(*site, "/api/v1/namespaces/ns1/pods?labelSelector=app%3Dmodel")["items"];
    CHECK(
        pods[0]["status"]["conditions"][0]["message"] ==
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity."
    );

    Json v100 = Deployment("v100", 1, {{"limits", {{"nvidia.com/gpu", 1}}}});
    v100["spec"]["template"]["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", "Tesla-V100-PCIE-16GB"}};
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", kDeployments, v100).status == 201);
    site->AdvanceClock(1.5);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    CHECK(ConditionStatus(Get(*site, kDeployments + "/v100"), "Available") == "True");
}

TEST_CASE("the API server's validation: strict fields, GPU limits, restart policy, names", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    const auto expect = [&](const Json& body,
                            int status,
                            const std::string& reason,
                            const std::string& words,
                            const std::string& path = kDeployments) {
        auto r = Call(*site, SimApi::kKubernetes, "POST", path, body);
        CHECK(r.status == status);
        const Json s = BodyOf(r);
        CHECK(s["kind"] == "Status");
        CHECK(s["reason"] == reason);
        CHECK(s["message"].get<std::string>().find(words) != std::string::npos);
    };
    Json unknown = Deployment("u", 1);
    unknown["spec"]["template"]["spec"]["containers"][0]["gpus"] = 1;
    expect(
        unknown, 400, "BadRequest", "strict decoding error: unknown field \"spec.template.spec.containers[0].gpus\""
    );
    expect(
        Deployment("r", 1, {{"requests", {{"nvidia.com/gpu", 1}}}}),
        422,
        "Invalid",
        "Limit must be set for non overcommitable resources"
    );
    expect(
        Deployment("e", 1, {{"requests", {{"nvidia.com/gpu", 1}}}, {"limits", {{"nvidia.com/gpu", 2}}}}),
        422,
        "Invalid",
        "must be equal to nvidia.com/gpu limit"
    );
    expect(Deployment("f", 1, {{"limits", {{"nvidia.com/gpu", "500m"}}}}), 422, "Invalid", "must be an integer");
    expect(Deployment("Bad_Name", 1), 422, "Invalid", "RFC 1123");
    Json selector = Deployment("s", 1);
    selector["spec"]["selector"]["matchLabels"]["app"] = "other";
    expect(selector, 422, "Invalid", "`selector` does not match template `labels`");
    Json always = Job("j");
    always["spec"]["template"]["spec"]["restartPolicy"] = "Always";
    expect(always, 422, "Invalid", "supported values: \"Never\", \"OnFailure\"", "/apis/batch/v1/namespaces/ns1/jobs");
    expect(
        Deployment("nons", 1),
        404,
        "NotFound",
        "namespaces \"nowhere\" not found",
        "/apis/apps/v1/namespaces/nowhere/deployments"
    );
    Json wrong_version = Deployment("v", 1);
    wrong_version["apiVersion"] = "apps/v1beta1";
    expect(wrong_version, 400, "BadRequest", "does not match the expected API version");
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", kDeployments, Deployment("dup", 1)).status == 201);
    expect(Deployment("dup", 1), 409, "AlreadyExists", "deployments.apps \"dup\" already exists");
    auto malformed = site->Handle(SimApi::kKubernetes, orch::sim::MakeSimRequest("POST", kDeployments, "{"));
    CHECK(malformed.status == 400);
}

TEST_CASE("Jobs complete, fail after their backoff limit, and default to orphaning on delete", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    const std::string jobs = "/apis/batch/v1/namespaces/ns1/jobs";
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", jobs, Job("ok")).status == 201);
    REQUIRE(
        Call(
            *site, SimApi::kKubernetes, "POST", jobs, Job("bad", {{{"name", "SIM_EXIT_CODE"}, {"value", "1"}}})
        ).status == 201
    );
    for (int i = 0; i < 8; ++i) {
        site->AdvanceClock(1.5);
        Call(*site, SimApi::kKubernetes, "GET", "/version");
    }
    const Json ok = Get(*site, jobs + "/ok");
    CHECK(ConditionStatus(ok, "Complete") == "True");
    CHECK(ok["status"]["succeeded"] == 1);
    const Json bad = Get(*site, jobs + "/bad");
    CHECK(ConditionStatus(bad, "Failed") == "True");
    CHECK(bad["status"]["conditions"][0]["reason"] == "BackoffLimitExceeded");
    CHECK(bad["status"]["failed"] == 2);  // backoffLimit 1: the second failure ends it

    // Without propagationPolicy a batch/v1 Job orphans its pods.
    CHECK(Call(*site, SimApi::kKubernetes, "DELETE", jobs + "/ok").status == 200);
    bool orphaned = false;
    const Json objects = site->Objects();
    for (const auto& pod : objects["kubernetes"]["pods"]) {
        orphaned = orphaned || pod["orphaned"].get<bool>();
    }
    CHECK(orphaned);
    const Json foreground = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Foreground"}};
    auto deleting = Call(*site, SimApi::kKubernetes, "DELETE", jobs + "/bad", foreground);
    REQUIRE(deleting.status == 200);
    CHECK(BodyOf(deleting)["metadata"]["finalizers"][0] == "foregroundDeletion");
    CHECK(Call(*site, SimApi::kKubernetes, "GET", jobs + "/bad").status == 200);  // until its pods are gone
    site->AdvanceClock(1.5);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    site->AdvanceClock(0.1);
    CHECK(Call(*site, SimApi::kKubernetes, "GET", jobs + "/bad").status == 404);
}

TEST_CASE("a CronJob spawns Jobs on its schedule", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    Json cron = {
        {"apiVersion", "batch/v1beta1"},
        {"kind", "CronJob"},
        {"metadata", {{"name", "nightly"}}},
        {"spec",
         {{"schedule", "*/5 * * * *"},
          {"jobTemplate", {{"spec", {{"template", PodTemplate("nightly", Json::object(), "OnFailure")}}}}}}}};
    const std::string path = "/apis/batch/v1beta1/namespaces/ns1/cronjobs";
    Json bad = cron;
    bad["spec"]["schedule"] = "every night";
    CHECK(Call(*site, SimApi::kKubernetes, "POST", path, bad).status == 422);
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", path, cron).status == 201);
    site->AdvanceClock(600);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    const Json jobs = Get(*site, "/apis/batch/v1/namespaces/ns1/jobs")["items"];
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0]["metadata"]["ownerReferences"][0]["kind"] == "CronJob");
    CHECK_FALSE(Get(*site, path + "/nightly")["status"]["lastScheduleTime"].get<std::string>().empty());
}

TEST_CASE("deleting a namespace terminates it and everything inside", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", kDeployments, Deployment("web", 1)).status == 201);
    Json service = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", {{"name", "web"}}},
        {"spec",
         {{"type", "NodePort"}, {"selector", {{"app", "web"}}}, {"ports", {{{"port", 80}, {"targetPort", 80}}}}}}};
    auto svc = Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces/ns1/services", service);
    REQUIRE(svc.status == 201);
    CHECK(BodyOf(svc)["spec"]["ports"][0]["nodePort"].get<int>() >= 30000);
    site->AdvanceClock(1.5);
    auto deleted = Call(*site, SimApi::kKubernetes, "DELETE", "/api/v1/namespaces/ns1");
    REQUIRE(deleted.status == 200);
    CHECK(BodyOf(deleted)["status"]["phase"] == "Terminating");
    auto refused = Call(*site, SimApi::kKubernetes, "POST", kDeployments, Deployment("late", 1));
    CHECK(refused.status == 403);
    CHECK(BodyOf(refused)["message"].get<std::string>().find("being terminated") != std::string::npos);
    site->AdvanceClock(1.5);
    Call(*site, SimApi::kKubernetes, "GET", "/version");
    site->AdvanceClock(1.5);
    CHECK(Call(*site, SimApi::kKubernetes, "GET", "/api/v1/namespaces/ns1").status == 404);
    const Json objects = site->Objects()["kubernetes"];
    CHECK(objects["pods"].empty());
    CHECK_FALSE(objects.contains("deployments"));
}

namespace {

// The pods of a Deployment that are not terminating, and how many of them run the given image.
struct PodCount {
    int live = 0;
    int of_image = 0;
    int terminating = 0;
};

PodCount CountPods(orch::sim::SiteSim& site, const std::string& image) {
    PodCount n;
    const Json pods = Get(site, "/api/v1/namespaces/ns1/pods");
    for (const auto& pod : pods["items"]) {
        if (pod["metadata"].contains("deletionTimestamp")) {
            ++n.terminating;
            continue;
        }
        ++n.live;
        n.of_image += pod["spec"]["containers"][0]["image"] == image ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_CASE("a rollout honours the Deployment's maxSurge and maxUnavailable", "[sim][kubernetes]") {
    auto site = orch::sim::test::StillSite();
    REQUIRE(Call(*site, SimApi::kKubernetes, "POST", "/api/v1/namespaces", Namespace("ns1")).status == 201);
    const auto roll_out = [&](int replicas, const Json& rolling, const Json& resources) {
        Json d = Deployment("gpu", replicas, resources);
        d["spec"]["strategy"] = {{"type", "RollingUpdate"}, {"rollingUpdate", rolling}};
        REQUIRE(Call(*site, SimApi::kKubernetes, "POST", kDeployments, d).status == 201);
        Get(*site, "/version");
        site->AdvanceClock(2);
        Get(*site, "/version");
        REQUIRE(Get(*site, kDeployments + "/gpu")["status"]["availableReplicas"] == replicas);
        d["spec"]["template"]["spec"]["containers"][0]["image"] = "busybox:1.37";
        REQUIRE(Call(*site, SimApi::kKubernetes, "PUT", kDeployments + "/gpu", d).status == 200);
    };

    SECTION("maxSurge 0: an old pod goes before a new one starts (the GPU it holds is needed)") {
        // The site's one GPU node has 2 GPUs: both pods hold one, a surge pod could never start.
        roll_out(2, {{"maxSurge", 0}, {"maxUnavailable", 1}}, {{"limits", {{"nvidia.com/gpu", 1}}}});
        for (int step = 0; step < 20; ++step) {
            const PodCount n = CountPods(*site, "busybox:1.37");
            INFO("step " << step << ": live " << n.live << ", new " << n.of_image);
            CHECK(n.live <= 2);  // never more than replicas + maxSurge
            site->AdvanceClock(0.5);
        }
        const PodCount done = CountPods(*site, "busybox:1.37");
        CHECK(done.live == 2);
        CHECK(done.of_image == 2);
        CHECK(Get(*site, kDeployments + "/gpu")["status"]["updatedReplicas"] == 2);
    }
    SECTION("maxUnavailable 0: a new pod is ready before an old one goes") {
        roll_out(2, {{"maxSurge", 1}, {"maxUnavailable", 0}}, {{"requests", {{"cpu", "500m"}}}});
        for (int step = 0; step < 20; ++step) {
            Get(*site, "/version");
            const Json status = Get(*site, kDeployments + "/gpu")["status"];
            const PodCount n = CountPods(*site, "busybox:1.37");
            INFO("step " << step << ": live " << n.live << ", new " << n.of_image);
            CHECK(n.live <= 3);
            CHECK(status["availableReplicas"].get<int>() >= 2);
            site->AdvanceClock(0.5);
        }
        CHECK(CountPods(*site, "busybox:1.37").of_image == 2);
    }
}
