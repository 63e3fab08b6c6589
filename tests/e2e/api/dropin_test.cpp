// Drop-in differences that real clients (orchent, orchestrator-dashboard) hit against the
// original v4.0.1 (api-contract.md), on the real binary and PostgreSQL: Jackson's reading of
// numbers and booleans, deleted deployments disappearing, the PUT answer orchent decodes,
// /configuration's service URLs, Spring Data's multi-key sort, limits named in their messages and
// the original's QCG naming of batch-job deployments.
#include "../sites/site_rig.hpp"
#include "api_harness.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

namespace {

using orch::Json;
using orch::http::ClientResponse;
using orch::test::MarathonTemplate;

class Api : public orch::test::ApiHarness {
   public:
    explicit Api(const std::string& extra_yaml = "") : ApiHarness("dropin", extra_yaml) {}

    ClientResponse Post(Json body) {
        body["template"] = MarathonTemplate();
        return Call("POST", "/deployments", body.dump());
    }

    std::string Create() {
        const auto res = Post(Json::object());
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"];
    }

    std::int64_t Total(const std::string& query = "") {
        return Json::parse(Call("GET", "/deployments" + query).body)["page"]["totalElements"];
    }

    /// Polls GET `path` until it answers `status`; false after 20 s.
    bool WaitStatus(const std::string& path, int status) {
        for (int i = 0; i < 200; ++i) {
            if (Call("GET", path).status == status) {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
};

std::string ErrorMessage(const ClientResponse& res, int status) {
    CHECK(res.status == status);
    const auto body = Json::parse(res.body);
    CHECK(body["code"] == status);
    return body.value("message", "");
}

std::string LinkOf(const Json& page, const std::string& rel) {
    for (const auto& link : page["links"]) {
        if (link["rel"] == rel) {
            return link["href"];
        }
    }
    return "";
}

}  // namespace

TEST_CASE("numbers and booleans are read as the original's Jackson read them", "[e2e][dropin]") {
    Api api;
    int created = 0;
    const auto accepted = [&](const Json& body) {
        const auto res = api.Post(body);
        INFO(body.dump() << " -> " << res.body);
        CHECK(res.status == 201);
        created += res.status == 201 ? 1 : 0;
    };
    // The dashboard's cleared timeout box, and Jackson's textual null: not given.
    accepted({{"providerTimeoutMins", ""}, {"timeoutMins", ""}, {"maxProvidersRetry", ""}, {"keepLastAttempt", ""}});
    accepted({{"timeoutMins", "null"}, {"keepLastAttempt", "null"}});
    // Floats truncated toward zero: 1.9 reads as 1, so it is not above the overall timeout of 1.
    accepted({{"timeoutMins", 1}, {"providerTimeoutMins", 1.9}, {"maxProvidersRetry", 2.5}});
    // Padded, zero-led and signed numeric strings; trimmed "True".
    accepted({{"timeoutMins", "05"}, {"providerTimeoutMins", " +5\t"}, {"keepLastAttempt", " True "}});
    accepted({{"keepLastAttempt", 0}, {"maxProvidersRetry", "\n3 "}});

    // " 7" is read as 7: the rule between the two timeouts sees the value, not a type error.
    CHECK(
        ErrorMessage(api.Post({{"timeoutMins", "6"}, {"providerTimeoutMins", " 7"}}), 400) ==
        "ProviderTimeout must be <= Timeout"
    );
    CHECK(
        ErrorMessage(api.Post({{"timeoutMins", 0.5}}), 400) ==
        "Overall timeout value, if provided, must be at least of 1 minute"
    );

    // What Jackson refused stays refused.
    const std::vector<std::pair<const char*, Json>> refused = {
        {"maxProvidersRetry", "abc"},
        {"timeoutMins", "1.5"},
        {"timeoutMins", true},
        {"timeoutMins", 3e9},
        {"timeoutMins", "2147483648"},
        {"timeoutMins", Json::array({5})},
        {"timeoutMins", "0x10"},
        {"keepLastAttempt", "TRUE"},
        {"keepLastAttempt", "yes"},
        {"keepLastAttempt", 1.5},
        {"keepLastAttempt", Json::object()}};
    for (const auto& [field, value] : refused) {
        INFO(field << " = " << value.dump());
        const std::string kind = std::string(field) == "keepLastAttempt" ? "a boolean" : "an integer";
        CHECK(ErrorMessage(api.Post({{field, value}}), 400) == "Field '" + std::string(field) + "' must be " + kind);
    }
    CHECK(api.Total() == created);
}

TEST_CASE("a limit beyond our caps is named in the 400", "[e2e][dropin]") {
    Api api;
    CHECK(
        ErrorMessage(api.Post({{"maxProvidersRetry", 1001}}), 400) ==
        "maxProvidersRetry value, if provided, must be at most 1000"
    );
    CHECK(
        ErrorMessage(api.Post({{"timeoutMins", 2000000000}}), 400) ==
        "Overall timeout value, if provided, must be at most 1000000000 minutes"
    );
    CHECK(
        ErrorMessage(api.Post({{"providerTimeoutMins", "1000000001"}}), 400) ==
        "Provider timeout value, if provided, must be at most 1000000000 minutes"
    );
    CHECK(api.Post({{"maxProvidersRetry", 1000}}).status == 201);
}

TEST_CASE("sort takes Spring Data's properties-then-direction lists", "[e2e][dropin]") {
    Api api;
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        ids.push_back(api.Create());
    }
    for (const auto& id : ids) {
        api.WaitFor(id, "CREATE_FAILED");  // one status for all: createdAt decides
    }
    const auto uuids = [](const Json& page) {
        std::vector<std::string> out;
        for (const auto& d : page["content"]) {
            out.push_back(d["uuid"]);
        }
        return out;
    };
    // status,createdAt,desc = status desc, then createdAt desc: newest first.
    const auto desc = Json::parse(api.Call("GET", "/deployments?size=2&sort=status,createdAt,desc").body);
    CHECK(uuids(desc) == std::vector<std::string>{ids[2], ids[1]});
    CHECK(LinkOf(desc, "next") == api.base() + "/deployments?page=1&size=2&sort=status,desc&sort=createdAt,desc");
    // Without a direction every property is ascending; the direction's case does not matter.
    const auto asc = Json::parse(api.Call("GET", "/deployments?sort=status,createdAt").body);
    CHECK(uuids(asc) == std::vector<std::string>{ids[0], ids[1], ids[2]});
    const auto upper = Json::parse(api.Call("GET", "/deployments?sort=createdAt,DESC").body);
    CHECK(uuids(upper) == std::vector<std::string>{ids[2], ids[1], ids[0]});
    CHECK(
        ErrorMessage(api.Call("GET", "/deployments?sort=status,nope,desc"), 400) == "No property nope found for sorting"
    );
}

TEST_CASE("a deleted deployment is gone for its users, audited for admins, purged after retention", "[e2e][dropin]") {
    Api api("deployments:\n  deleted_retention: 4s\n");
    const auto kept = api.Create();
    const auto id = api.Create();
    api.WaitFor(id, "CREATE_FAILED");
    REQUIRE(api.Call("DELETE", "/deployments/" + id + "?force=false").status == 204);
    // As in v4.0.1: once the delete completes, GET says 404 (scripts poll for it) ...
    REQUIRE(api.WaitStatus("/deployments/" + id, 404));
    CHECK(ErrorMessage(api.Call("GET", "/deployments/" + id), 404) == "The deployment <" + id + "> doesn't exist");
    // ... and so does everything under it, and a second DELETE.
    CHECK(api.Call("GET", "/deployments/" + id + "/resources").status == 404);
    CHECK(api.Call("GET", "/deployments/" + id + "/template").status == 404);
    CHECK(api.Call("DELETE", "/deployments/" + id).status == 404);
    // Lists no longer hold it (orchent depls piled them up), whatever the filter.
    const auto list = Json::parse(api.Call("GET", "/deployments").body);
    REQUIRE(list["content"].size() == 1);
    CHECK(list["content"][0]["uuid"] == kept);
    CHECK(list["page"]["totalElements"] == 1);
    CHECK(api.Total("?excludedStatus=CREATE_FAILED") == 0);

    // The admin's audit view (auth disabled: the local user is admin) still shows the record.
    const auto audit = api.Call("GET", "/deployments/" + id + "?includeDeleted=true");
    REQUIRE(audit.status == 200);
    CHECK(Json::parse(audit.body)["status"] == "DELETE_COMPLETE");
    const auto audited = Json::parse(api.Call("GET", "/deployments?includeDeleted=true&size=1").body);
    CHECK(audited["page"]["totalElements"] == 2);
    CHECK(LinkOf(audited, "next").find("includeDeleted=true") != std::string::npos);

    // Housekeeping purges it once the retention has passed; the live deployment stays.
    CHECK(api.WaitStatus("/deployments/" + id + "?includeDeleted=true", 404));
    CHECK(api.Total("?includeDeleted=true") == 1);
    CHECK(api.Call("GET", "/deployments/" + kept).status == 200);
}

TEST_CASE("/configuration names the service URLs as strings, without credentials", "[e2e][dropin]") {
    SECTION("local catalogue and SLAs, no monitoring: the original's keys, empty") {
        Api api;
        const auto config = Json::parse(api.Call("GET", "/configuration").body);
        CHECK(config["cmdb_url"] == "");
        CHECK(config["slam_url"] == "");
        CHECK(config["monitoring_url"] == "");
        CHECK(config["placement_mode"].is_string());  // ours, beside the original's keys
    }
    SECTION("remote services: their URLs, user info and query left out") {
        orch::test::TestDatabase db;
        const std::string dir = orch::test::BinaryDir() + "/dropin-conf-" + orch::RandomUuid().substr(0, 8);
        std::filesystem::create_directories(dir);
        std::ofstream(dir + "/orchestrator.yaml")
            << "auth:\n  mode: disabled\n"
            << "placement:\n"
            << "  catalogue: {type: cmdb, url: \"http://cmdb-user:cmdb-secret@127.0.0.1:9/cmdb/v1\"}\n"
            << "  sla: {type: slam, url: \"http://127.0.0.1:9/slam?api_key=slam-secret\"}\n"
            << "  monitoring: {type: prometheus, url: \"http://127.0.0.1:9/prom\"}\n";
        orch::test::OrchestratorProcess process(db.dsn(), {}, dir + "/orchestrator.yaml");
        REQUIRE(orch::test::WaitForStatus(process.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
        orch::e2e::Api client(process.BaseUrl());
        const auto res = client.Call("GET", "/configuration");
        REQUIRE(res.status == 200);
        CHECK(res.body.find("secret") == std::string::npos);
        const auto config = Json::parse(res.body);
        CHECK(config["cmdb_url"] == "http://127.0.0.1:9/cmdb/v1");
        CHECK(config["slam_url"] == "http://127.0.0.1:9/slam");
        CHECK(config["monitoring_url"] == "http://127.0.0.1:9/prom");
        for (const auto& [key, value] : config.items()) {
            CHECK(value.is_string());  // orchent showconf: map[string]string
        }
    }
}

TEST_CASE("PUT answers 202 with the deployment orchent decodes, numbers read as on create", "[e2e][dropin]") {
    // A Kubernetes site on site-sim (updates are refused for Marathon, Chronos and QCG).
    orch::e2e::SimProcess sim(
        "speed: 20\nkube_nodes:\n  - {name: gpu-a, cpu: 16, memory_mb: 65536, gpus: 4, gpu_product: Tesla-T4}\n"
    );
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orchestrator(
        db.dsn(),
        {},
        orch::e2e::WriteOrchestratorConfig({orch::e2e::SiteSpec{"SITE-A", &sim, "Tesla T4", 8, 1.0, false, false, true}}
        )
    );
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    orch::e2e::Api api(orchestrator.BaseUrl());
    const std::string text = orch::e2e::KubernetesWithGpu("Tesla T4");
    const auto created = api.Call("POST", "/deployments", Json{{"template", text}}.dump());
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"];
    const auto done = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, std::chrono::seconds(60));
    INFO(done.dump(2));
    REQUIRE(done["status"] == "CREATE_COMPLETE");

    // The dashboard's update form: the cleared timeout box, string numbers and booleans.
    const Json update = {
        {"template", text},
        {"providerTimeoutMins", ""},
        {"timeoutMins", " 60"},
        {"maxProvidersRetry", 1.0},
        {"keepLastAttempt", "false"}};
    const auto res = api.Call("PUT", "/deployments/" + id, update.dump());
    INFO(res.body);
    REQUIRE(res.status == 202);
    CHECK(res.Header("Content-Type").rfind("application/json", 0) == 0);
    const auto body = Json::parse(res.body);
    CHECK(body["uuid"] == id);
    CHECK(body["status"] == "UPDATE_IN_PROGRESS");
    CHECK(body["links"][0]["href"] == orchestrator.BaseUrl() + "/deployments/" + id);
    CHECK(body["cloudProviderEndpoint"]["deploymentType"] == "KUBERNETES");
    const auto updated = api.WaitFor(id, {"UPDATE_COMPLETE", "UPDATE_FAILED"}, std::chrono::seconds(60));
    CHECK(updated["status"] == "UPDATE_COMPLETE");

    // A deployment removed from its site is gone from the API too (the original's 404).
    REQUIRE(api.Call("DELETE", "/deployments/" + id).status == 204);
    bool gone = false;
    for (int i = 0; i < 600 && !gone; ++i) {
        gone = api.Call("GET", "/deployments/" + id).status == 404;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(gone);
    CHECK_FALSE(orch::e2e::Mentions(orch::e2e::ProviderObjects(sim.Objects()), id));
}

TEST_CASE("a batch job on a Slurm site is the original's QCG deployment", "[e2e][dropin]") {
    // A minimal slurmrestd: no jobs yet, and every submission accepted (the endpoint is recorded
    // once the site took the job).
    orch::test::FixtureHttpServer slurm(std::make_shared<orch::test::FixtureRoutes>());
    slurm.routes().Route("GET", "/slurm/v0.0.38/jobs", [](const orch::test::FixtureRequest&) {
        return orch::test::FixtureResponse{200, "application/json", R"({"jobs": [], "errors": []})"};
    });
    slurm.routes().Route("POST", "/slurm/v0.0.38/job/submit", [](const orch::test::FixtureRequest&) {
        return orch::test::FixtureResponse{200, "application/json", R"({"job_id": 7, "errors": []})"};
    });
    const std::string catalogue =
        "providers:\n  - id: HPC-A\n    name: HPC-A\n    services:\n      HPC-A_slurm:\n"
        "        service_type: org.schedmd.slurm\n        endpoint: " +
        slurm.url() +
        "\n        type: compute\n        iam_enabled: false\n"
        "        properties: {gpu_support: true, gpu_vendor: nvidia, gpu_model: \"Tesla V100\", num_gpus: 2, "
        "partition: gpu, gpu_types: {\"Tesla V100\": v100}}\n";
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orchestrator(
        db.dsn(),
        {},
        orch::e2e::WriteOrchestratorFiles(
            catalogue,
            orch::e2e::SlaYaml({{"HPC-A", "HPC-A_slurm", 1.0}}),
            "  transient_retries: 0\n",
            "credentials:\n  HPC-A_slurm: {username: u, token: \"t\"}\n"
        )
    );
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    orch::e2e::Api api(orchestrator.BaseUrl());
    const Json inputs = {
        {"onedata_space_name", "e2e-space"},
        {"docker_image", "deephdc/deep-oc-benchmarks_cnn:gpu"},
        {"num_gpus", 1},
        {"queue", "gpu"},
        {"std_outerr", "out.txt"}};
    const auto created = api.Call(
        "POST",
        "/deployments",
        Json{
            {"template", orch::e2e::CorpusTemplate("indigo-dc-tosca-templates/deep_qcg_job.yaml")},
            {"parameters", inputs}}
            .dump()
    );
    INFO(created.body);
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"];
    Json d;
    for (int i = 0; i < 300 && !d.contains("cloudProviderEndpoint"); ++i) {
        d = api.Get(id).value_or(Json::object());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(d.dump(2));
    REQUIRE(d.contains("cloudProviderEndpoint"));
    CHECK(d["cloudProviderEndpoint"]["deploymentType"] == "QCG");
    CHECK(
        ErrorMessage(api.Call("PUT", "/deployments/" + id, Json{{"template", "x"}}.dump()), 400) ==
        "QCG deployments cannot be updated."
    );
}
