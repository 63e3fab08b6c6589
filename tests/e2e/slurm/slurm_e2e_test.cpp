// End to end on the real Slurm rig (fixture `slurm`: slurmctld + slurmd + slurmrestd, node gpu01
// with two fake V100s, partition gpu): the real orchestrator binary, a real PostgreSQL, a
// catalogue written by the test whose Slurm services point at the rig, and the corpus QCG job
// template. Checks what the user sees (status, outputs, statusReason) and what slurmrestd itself
// lists, never the orchestrator's internals alone.
#include "../../integration/slurm/slurm_rig.hpp"
#include "../sites/site_rig.hpp"
#include "common/uuid.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::Api;
namespace rig = orch::test::slurm;

constexpr auto kJobTimeout = std::chrono::seconds(90);
const std::set<std::string> kCreateDone = {"CREATE_COMPLETE", "CREATE_FAILED"};
const std::set<std::string> kDeleteDone = {"DELETE_COMPLETE", "DELETE_FAILED"};

/// One catalogue site served by the rig. The rig is one cluster; sites differ in what their
/// catalogue entries claim and in the token the orchestrator holds for them.
struct SlurmSite {
    std::string id;
    double weight = 1.0;
    int num_gpus = 2;  ///< what the catalogue claims (the node really has 2)
    std::string token = rig::TheRig().token;
    std::string service() const { return id + "_slurm"; }
};

std::string RigHome() {
    return rig::TheRig().dir + "/home";
}

std::string Catalogue(const std::vector<SlurmSite>& sites) {
    std::ostringstream out;
    out << "providers:\n";
    for (const auto& site : sites) {
        out << "  - id: " << site.id << "\n    name: " << site.id << "\n    services:\n"
            << "      " << site.service() << ":\n"
            << "        service_type: org.schedmd.slurm\n"
            << "        endpoint: " << rig::TheRig().url << "\n"
            << "        type: compute\n"
            << "        iam_enabled: false\n"
            << "        properties: {gpu_support: true, gpu_vendor: nvidia, gpu_model: \"Tesla V100\", num_gpus: "
            << site.num_gpus << ", partition: gpu, working_directory: " << rig::TheRig().dir
            << "/jobs, home_directory: " << RigHome() << "/%u, gpu_types: {\"Tesla V100\": v100}}\n";
    }
    return out.str();
}

std::string Credentials(const std::vector<SlurmSite>& sites) {
    std::string out = "credentials:\n";
    for (const auto& site : sites) {
        out += "  " + site.service() + ": {username: " + rig::TheRig().user + ", token: \"" + site.token + "\"}\n";
    }
    return out;
}

struct Orchestrator {
    explicit Orchestrator(const std::vector<SlurmSite>& sites)
        : process(db.dsn(), {}, Config(sites)), api(process.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(process.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    static std::string Config(const std::vector<SlurmSite>& sites) {
        std::vector<orch::e2e::SlaEntry> slas;
        for (const auto& site : sites) {
            slas.push_back({site.id, site.service(), site.weight});
        }
        // The user's home on the site: the jobs of the REST user run there (see home_directory).
        std::filesystem::create_directories(RigHome() + "/" + rig::TheRig().user);
        std::filesystem::permissions(
            RigHome() + "/" + rig::TheRig().user, std::filesystem::perms::all | std::filesystem::perms::sticky_bit
        );
        return orch::e2e::WriteOrchestratorFiles(Catalogue(sites), orch::e2e::SlaYaml(slas), "", Credentials(sites));
    }

    std::string Create(const std::string& template_text, const Json& inputs) {
        const Json body = {{"template", template_text}, {"parameters", inputs}};
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"].get<std::string>();
    }

    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess process;
    Api api;
};

/// deep_qcg_job.yaml (the corpus' GPU job for HPC sites) with two changes: its executable pipes
/// a script from GitHub into bash, which cannot run here (no network; the script pulls a udocker
/// image), so `command` runs instead; and it declares no outputs, so two are added that read the
/// attributes the Slurm connector reports.
std::string DeepQcgJob(const std::string& command) {
    std::string text = orch::e2e::CorpusTemplate("indigo-dc-tosca-templates/deep_qcg_job.yaml");
    const std::string executable =
        "executable: \"curl -s https://raw.githubusercontent.com/deephdc/deep-hpc/qcg/deep-slurm-qcg.sh | bash\"";
    const auto at = text.find(executable);
    REQUIRE(at != std::string::npos);
    text.replace(at, executable.size(), "executable: " + Json(command).dump());
    if (text.back() != '\n') {
        text += '\n';
    }
    return text +
           "  outputs:\n"
           "    job_ids:\n      value: { get_attribute: [ qcg_job, job_ids ] }\n"
           "    hosts:\n      value: { get_attribute: [ qcg_job, hosts ] }\n";
}

Json Inputs(int gpus, const std::string& output_file) {
    return {
        {"onedata_space_name", "e2e-space"},
        {"docker_image", "deephdc/deep-oc-benchmarks_cnn:gpu"},
        {"num_gpus", gpus},
        {"queue", "gpu"},
        {"std_outerr", output_file}};
}

/// The jobs slurmrestd lists for a deployment (its own view, not the connector's).
std::vector<Json> ListedJobs(const std::string& deployment_id) {
    orch::http::ClientRequest list;
    list.url = rig::TheRig().url + "/slurm/v0.0.38/jobs";
    list.headers = {{"X-SLURM-USER-NAME", rig::TheRig().user}, {"X-SLURM-USER-TOKEN", rig::TheRig().token}};
    auto response = rig::Client().Send(list);
    REQUIRE(response);
    REQUIRE(response->status == 200);
    std::vector<Json> out;
    const Json listed = Json::parse(response->body);  // named: a temporary's ["jobs"] would dangle
    for (const auto& job : listed["jobs"]) {
        if (job.value("name", "").rfind("orch-" + deployment_id + "-", 0) == 0) {
            out.push_back(job);
        }
    }
    return out;
}

/// Polls the listing until the deployment's only job is in `state`; returns that job.
Json WaitForJobState(const std::string& deployment_id, const std::string& state, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    Json last;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto jobs = ListedJobs(deployment_id);
        if (jobs.size() == 1) {
            last = jobs[0];
            if (last.value("job_state", "") == state) {
                return last;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    INFO("last listed: " << last.dump());
    FAIL("the deployment's job never reached " << state);
    return last;
}

std::string Unique(const std::string& prefix) {
    return prefix + "-" + orch::RandomUuid().substr(0, 8) + ".txt";
}

}  // namespace

TEST_CASE(
    "the corpus QCG GPU job completes on Slurm with outputs, in the user's home, and its delete ends at once",
    "[e2e][slurm]"
) {
    Orchestrator o({SlurmSite{"HPC-A"}});
    const std::string output_file = Unique("deep");
    const std::string id = o.Create(
        DeepQcgJob("echo \"image=$DOCKER_IMAGE gpus=$SLURM_GPUS_ON_NODE dir=$(pwd)\""), Inputs(1, output_file)
    );
    const Json d = o.api.WaitFor(id, kCreateDone, kJobTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(d["cloudProviderName"] == "HPC-A");

    const Json job = WaitForJobState(id, "COMPLETED", std::chrono::seconds(10));
    CHECK(d["outputs"]["hosts"] == Json::array({"gpu01"}));
    REQUIRE(d["outputs"]["job_ids"].size() == 1);
    CHECK(d["outputs"]["job_ids"][0].dump() == job["job_id"].dump());
    // The template's directory "${HOME}" is the user's home on the site, where its output lands.
    const std::string home = RigHome() + "/" + rig::TheRig().user;
    CHECK(job["current_working_directory"] == home);
    CHECK(
        orch::test::ReadFile(home + "/" + output_file) ==
        "image=deephdc/deep-oc-benchmarks_cnn:gpu gpus=1 dir=" + home + "\n"
    );

    // Nothing is left to cancel: the delete ends without waiting for the site to forget the job.
    const auto started = std::chrono::steady_clock::now();
    REQUIRE(o.api.Call("DELETE", "/deployments/" + id).status == 204);
    const Json deleted = o.api.WaitFor(id, kDeleteDone, std::chrono::seconds(30));
    INFO(deleted.dump(2));
    CHECK(deleted["status"] == "DELETE_COMPLETE");
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
    CHECK(WaitForJobState(id, "COMPLETED", std::chrono::seconds(5))["job_id"] == job["job_id"]);
}

TEST_CASE("DELETE of a running QCG job cancels it in slurmrestd's own listing", "[e2e][slurm]") {
    Orchestrator o({SlurmSite{"HPC-A"}});
    const std::string id = o.Create(DeepQcgJob("sleep 300"), Inputs(1, Unique("sleeper")));
    const Json running = WaitForJobState(id, "RUNNING", std::chrono::seconds(60));
    CHECK(o.api.Get(id).value()["status"] == "CREATE_IN_PROGRESS");  // ready only once the job has run

    REQUIRE(o.api.Call("DELETE", "/deployments/" + id).status == 204);
    const Json deleted = o.api.WaitFor(id, kDeleteDone, std::chrono::seconds(60));
    INFO(deleted.dump(2));
    CHECK(deleted["status"] == "DELETE_COMPLETE");
    const Json cancelled = WaitForJobState(id, "CANCELLED", std::chrono::seconds(30));
    CHECK(cancelled["job_id"] == running["job_id"]);
}

TEST_CASE(
    "more GPUs than the node has: every Slurm site is tried and Slurm's reason is in statusReason", "[e2e][slurm]"
) {
    // Both catalogue entries claim 8 GPUs (a stale catalogue), so placement lets the request
    // through and Slurm itself refuses it; being one cluster, both sites refuse. Slurm refuses
    // the first submission outright but may accept the same request again and then end the job
    // FAILED with reason BadConstraints: either way it is the site's refusal, not the job's.
    Orchestrator o({SlurmSite{"HPC-A", 1.0, 8}, SlurmSite{"HPC-B", 0.5, 8}});
    const std::string id = o.Create(DeepQcgJob("true"), Inputs(3, Unique("big")));
    const Json d = o.api.WaitFor(id, kCreateDone, kJobTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_FAILED");
    const std::string reason = d["statusReason"].get<std::string>();
    CHECK_THAT(reason, Catch::StartsWith("Retries on cloud providers exhausted"));
    CHECK_THAT(reason, Catch::Contains("Cloud Provider HPC-A\n") && Catch::Contains("Cloud Provider HPC-B\n"));
    const Json attempts = orch::e2e::AttemptsOf(o.db.dsn(), id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["provider_id"] == "HPC-A");
    CHECK(attempts[1]["provider_id"] == "HPC-B");
    for (const auto& a : attempts) {
        CHECK(a["outcome"] == "FAILED");
        CHECK_THAT(
            a["reason"].get<std::string>(),
            Catch::Contains("Requested node configuration is not available") || Catch::Contains("BadConstraints")
        );
    }
    CHECK_THAT(reason, Catch::Contains("Requested node configuration is not available"));
    for (const auto& job : ListedJobs(id)) {  // nothing of it runs or waits
        CHECK(job["job_state"] != "RUNNING");
        CHECK(job["job_state"] != "PENDING");
    }
}

TEST_CASE("a Slurm site that refuses the orchestrator's token is left for the next one", "[e2e][slurm]") {
    SlurmSite refused{"HPC-A", 1.0};
    refused.token = "not-a-jwt";
    Orchestrator o({refused, SlurmSite{"HPC-B", 0.5}});
    const std::string id = o.Create(DeepQcgJob("echo done"), Inputs(1, Unique("moved")));
    const Json d = o.api.WaitFor(id, kCreateDone, kJobTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(d["cloudProviderName"] == "HPC-B");
    const Json attempts = orch::e2e::AttemptsOf(o.db.dsn(), id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["provider_id"] == "HPC-A");
    CHECK(attempts[0]["outcome"] == "FAILED");
    CHECK_THAT(attempts[0]["reason"].get<std::string>(), Catch::Contains("JWT"));
    CHECK(attempts[1]["provider_id"] == "HPC-B");
    CHECK(attempts[1]["outcome"] == "SUCCEEDED");
    CHECK(WaitForJobState(id, "COMPLETED", std::chrono::seconds(10))["job_id"] == d["outputs"]["job_ids"][0]);
}
