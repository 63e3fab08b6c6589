// The Slurm job submission body built from a batch-job node (no site needed).
#include <connectors/slurm_job.hpp>

#include <catch2/catch.hpp>

using orch::Json;
using orch::connectors::BuildSlurmSubmission;
using orch::connectors::DeployRequest;
using orch::connectors::Failure;

namespace {

orch::tosca::NodeSpec QcgJob(Json properties) {
    orch::tosca::NodeSpec node;
    node.name = "qcg_job";
    node.type = "tosca.nodes.indigo.Qcg.Job";
    node.type_chain = {node.type, "tosca.nodes.indigo.Batch.Job", "tosca.nodes.Root"};
    node.command = "date";
    node.properties = std::move(properties);
    return node;
}

// The submission's job object for `node` on a site with the given options and user.
Json JobFor(const orch::tosca::NodeSpec& node, Json options, const std::string& user = "alice") {
    orch::tosca::DeploymentSpec spec;
    spec.nodes = {node};
    DeployRequest request;
    request.deployment_id = "11ed8ab3-6a40-968a-82b7-62f0862dbe46";
    request.spec = &spec;
    request.target.options = std::move(options);
    request.target.credentials.username = user;
    auto built = BuildSlurmSubmission(request, node, 0);
    if (auto* failure = std::get_if<Failure>(&built)) {
        FAIL(failure->message);
    }
    return std::get<Json>(built)["job"];
}

}  // namespace

TEST_CASE("paths in the user's home are expanded with the site's home directory", "[slurm]") {
    const Json site = {{"home_directory", "/home/%u"}, {"working_directory", "/scratch/jobs"}};
    // deep_qcg_job.yaml: directory "${HOME}", std_outerr "log.txt" (relative to the directory).
    Json job = JobFor(QcgJob({{"directory", "${HOME}"}, {"std_outerr", "log.txt"}}), site);
    CHECK(job["current_working_directory"] == "/home/alice");
    CHECK(job["standard_output"] == "log.txt");

    job = JobFor(QcgJob({{"directory", "$HOME/runs"}, {"stdout", "~/out/%j.txt"}, {"stderr", "${HOME}/err"}}), site);
    CHECK(job["current_working_directory"] == "/home/alice/runs");
    CHECK(job["standard_output"] == "/home/alice/out/%j.txt");
    CHECK(job["standard_error"] == "/home/alice/err");

    // Only the home itself: other variables and other users' homes are left as written.
    job = JobFor(QcgJob({{"directory", "$HOMEDIR/x"}, {"stdout", "~bob/out"}}), site);
    CHECK(job["current_working_directory"] == "$HOMEDIR/x");
    CHECK(job["standard_output"] == "~bob/out");
}

TEST_CASE("without a home directory the site's working directory stands in for it", "[slurm]") {
    Json job = JobFor(QcgJob({{"directory", "${HOME}"}}), {{"working_directory", "/scratch/jobs"}});
    CHECK(job["current_working_directory"] == "/scratch/jobs");
    job = JobFor(QcgJob({{"directory", "~/sub"}}), Json::object());
    CHECK(job["current_working_directory"] == "/tmp/sub");
    job = JobFor(QcgJob(Json::object()), {{"working_directory", "/scratch/jobs"}});
    CHECK(job["current_working_directory"] == "/scratch/jobs");
    job = JobFor(QcgJob({{"directory", "/data/run"}}), {{"home_directory", "/home/%u"}});
    CHECK(job["current_working_directory"] == "/data/run");
}
