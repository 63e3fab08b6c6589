// The elastic autoscaler's sweep over the in-memory stores, the real TOSCA engine on the corpus's
// INDIGO Kubernetes elastic cluster, a queue signal the test sets and a ManualClock: it scales
// through the PUT path (resources planned, the update job queued), records its decision as an
// event, keeps to min/max, and of two replicas sweeping at once only one decides.
#include "../../unit/tosca/tosca_test_util.hpp"
#include "test_support/fakes.hpp"
#include "test_support/in_memory_elastic_store.hpp"
#include "test_support/in_memory_stores.hpp"

#include <common/config.hpp>
#include <common/uuid.hpp>
#include <orchestrator/api/elastic_count.hpp>
#include <orchestrator/api/elastic_sweep.hpp>
#include <orchestrator/app/elastic_config.hpp>
#include <orchestrator/service/new_deployment.hpp>
#include <orchestrator/workflow/elastic_template.hpp>
#include <orchestrator/workflow/tosca_template_service.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

namespace {

using orch::Json;
using std::chrono::seconds;

std::string CorpusFile(const std::string& relative) {
    return orch::test::ReadFile(orch::tosca::test::CorpusDir() + "/" + relative);
}

const std::string kK8sElastic = "indigo-dc-tosca-types/examples/kubernetes_elastic_cluster.yaml";

// A scalable cluster with bounds but no ElasticCluster node: its owner scales it, not the sweep.
constexpr char kPlainCluster[] = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  node_templates:
    worker:
      type: tosca.nodes.indigo.Compute
      capabilities:
        scalable:
          properties:
            count: 1
            min_instances: 1
            max_instances: 5
)";

struct Rig {
    orch::ManualClock clock;
    orch::test::InMemoryStores stores{clock};
    orch::test::InMemoryElasticStore elastic{stores.db};
    orch::workflow::ToscaTemplateService templates{orch::tosca::test::SharedEngine()};
    orch::test::FakeAuthenticator authenticator;
    orch::auth::AuthConfig auth_config;
    orch::api::ApiContext ctx{
        stores.deployments, templates, authenticator, nullptr, auth_config, clock, nullptr, "http://o.test", nullptr};
    double queue = 0;
    int signal_reads = 0;
    orch::api::ElasticSweepOptions options = [] {
        orch::api::ElasticSweepOptions o;
        o.interval = seconds(10);
        o.settings.scale_out_above = 0;
        o.settings.scale_in_below = 0;
        o.settings.max_step = 2;
        o.settings.sustain = seconds(20);
        o.settings.cooldown = seconds(60);
        return o;
    }();

    orch::api::ElasticSweep Sweep() {
        return orch::api::ElasticSweep(
            ctx,
            elastic,
            [this](const orch::domain::Deployment&) -> orch::Result<std::optional<double>> {
                ++signal_reads;
                return std::optional<double>(queue);
            },
            options
        );
    }

    // A created deployment, completed as the workflow would (CREATE_COMPLETE, resources started).
    std::string Running(const std::string& text, const Json& parameters = Json::object()) {
        orch::service::DeploymentDraft draft{text, parameters};
        draft.owner = orch::domain::Owner{"https://iam.example/", "alice"};
        auto created = orch::service::BuildNewDeployment(templates, draft, {}, clock.now());
        REQUIRE(created);
        REQUIRE(stores.deployments.Create(*created));
        Complete();
        return created->deployment.id;
    }
    // Runs whatever workflow job is queued to its successful end (create or update).
    void Complete() {
        auto jobs = stores.workflow.Claim("w", 10, seconds(60));
        REQUIRE(jobs);
        for (const auto& job : *jobs) {
            orch::workflow::Transition t;
            t.status = job.kind == orch::workflow::JobKind::kDeploy ? orch::domain::Status::kCreateComplete
                                                                    : orch::domain::Status::kUpdateComplete;
            t.resources_state = orch::domain::NodeState::kStarted;
            t.drop_deleting_resources = true;  // the workers a scale in removed are gone
            REQUIRE(stores.workflow.Commit(job, "w", t));
        }
    }
    int LiveWorkers(const std::string& id) {
        auto page = stores.deployments.ListResources(id, std::nullopt, 0, 1000, {});
        REQUIRE(page);
        int n = 0;
        for (const auto& r : page->items) {
            n += r.node_name == "lrms_wn" && r.state != orch::domain::NodeState::kDeleting ? 1 : 0;
        }
        return n;
    }
    orch::domain::Status StatusOf(const std::string& id) { return stores.deployments.Get(id).value()->status; }
};

}  // namespace

TEST_CASE("elastic: the INDIGO elastic-cluster templates are recognised, others are not", "[elastic]") {
    orch::workflow::ToscaTemplateService templates{orch::tosca::test::SharedEngine()};
    const auto spec = templates.Build(CorpusFile(kK8sElastic), Json::object(), Json::object());
    REQUIRE(spec);
    const auto target = orch::workflow::FindElasticTarget(*spec);
    REQUIRE(target);
    CHECK(target->worker_node == "lrms_wn");
    CHECK(target->count == 0);
    CHECK(target->min == 0);
    CHECK(target->max == 5);  // wn_num's default
    const auto plain = templates.Build(kPlainCluster, Json::object(), Json::object());
    REQUIRE(plain);
    CHECK_FALSE(orch::workflow::FindElasticTarget(*plain));
}

TEST_CASE("elastic: a literal count is rewritten in the template, a get_input count is a parameter", "[elastic]") {
    orch::workflow::ToscaTemplateService templates{orch::tosca::test::SharedEngine()};
    const auto edit = orch::api::WithNodeCount(CorpusFile(kK8sElastic), "lrms_wn", 3);
    REQUIRE(edit);
    CHECK(edit->parameters.empty());
    const auto spec = templates.Build(edit->template_text, Json::object(), Json::object());
    REQUIRE(spec);
    CHECK(spec->FindNode("lrms_wn")->count == 3);

    const std::string with_input = R"(tosca_definitions_version: tosca_simple_yaml_1_0
topology_template:
  inputs:
    workers: {type: integer, default: 1}
  node_templates:
    wn:
      type: tosca.nodes.Compute
      capabilities:
        scalable:
          properties:
            count: { get_input: workers }
)";
    const auto by_input = orch::api::WithNodeCount(with_input, "wn", 4);
    REQUIRE(by_input);
    CHECK(by_input->template_text == with_input);
    CHECK(by_input->parameters == Json{{"workers", 4}});
    CHECK_FALSE(orch::api::WithNodeCount(with_input, "nope", 4));

    // No scalable capability written (count 1 by default): the path is created.
    const std::string bare = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  node_templates:
    wn:
      type: tosca.nodes.indigo.Compute
)";
    const auto created = orch::api::WithNodeCount(bare, "wn", 2);
    REQUIRE(created);
    const auto bare_spec = templates.Build(created->template_text, Json::object(), Json::object());
    REQUIRE(bare_spec);
    CHECK(bare_spec->FindNode("wn")->count == 2);
    CHECK_FALSE(orch::api::WithNodeCount("{ not: [yaml", "wn", 4));
}

TEST_CASE("elastic: the sweep scales through the update path and records the decision", "[elastic]") {
    Rig rig;
    const std::string id = rig.Running(CorpusFile(kK8sElastic), Json{{"wn_num", 3}});
    REQUIRE(rig.LiveWorkers(id) == 0);
    auto sweep = rig.Sweep();

    rig.queue = 5;
    CHECK(sweep.RunOnce() == 0);  // the level is seen, not yet held
    rig.clock.Advance(seconds(20));
    CHECK(sweep.RunOnce() == 1);
    CHECK(rig.StatusOf(id) == orch::domain::Status::kUpdateInProgress);
    CHECK(rig.LiveWorkers(id) == 2);  // one step of two
    CHECK(rig.stores.deployments.Get(id).value()->template_text.find("count: 2") != std::string::npos);
    const auto& events = rig.stores.db.events();
    REQUIRE_FALSE(events.empty());
    const auto& decided = events.back().event;
    CHECK(decided.type == orch::domain::EventType::kElasticScale);
    CHECK(decided.data["action"] == "scale_out");
    CHECK(decided.data["from"] == 0);
    CHECK(decided.data["to"] == 2);
    CHECK(decided.data["queue"] == 5.0);
    CHECK(decided.data["max"] == 3);

    // An update in progress is not a candidate; once complete, the cool-down holds it.
    rig.clock.Advance(seconds(20));
    CHECK(sweep.RunOnce() == 0);
    rig.Complete();
    rig.clock.Advance(seconds(20));
    CHECK(sweep.RunOnce() == 0);
    rig.clock.Advance(seconds(40));  // past the cool-down, the level held since the last sweep
    CHECK(sweep.RunOnce() == 1);
    CHECK(rig.LiveWorkers(id) == 3);  // the maximum, not 4
    rig.Complete();

    // Drained: back to the minimum of 0, two at a time.
    rig.queue = 0;
    for (int i = 0; i < 12; ++i) {
        rig.clock.Advance(seconds(20));
        sweep.RunOnce();
        rig.Complete();
    }
    CHECK(rig.LiveWorkers(id) == 0);
}

TEST_CASE("elastic: two replicas sweeping at once decide once", "[elastic][reliability]") {
    Rig rig;
    const std::string id = rig.Running(CorpusFile(kK8sElastic), Json{{"wn_num", 3}});
    auto one = rig.Sweep();
    auto two = rig.Sweep();
    rig.queue = 5;
    one.RunOnce();
    two.RunOnce();  // same instant: the turn is taken, the signal not even read
    CHECK(rig.signal_reads == 1);
    rig.clock.Advance(seconds(20));
    CHECK(one.RunOnce() + two.RunOnce() == 1);
    CHECK(rig.LiveWorkers(id) == 2);
}

TEST_CASE("elastic: a deployment that is not an elastic cluster is never touched", "[elastic]") {
    Rig rig;
    const std::string id = rig.Running(kPlainCluster);
    auto sweep = rig.Sweep();
    rig.queue = 100;
    for (int i = 0; i < 5; ++i) {
        CHECK(sweep.RunOnce() == 0);
        rig.clock.Advance(seconds(30));
    }
    CHECK(rig.signal_reads == 0);
    CHECK(rig.StatusOf(id) == orch::domain::Status::kCreateComplete);
}

TEST_CASE("elastic: a group's policy in the SLA file overrides the operator's defaults", "[elastic][config]") {
    const std::string dir = orch::test::BinaryDir() + "/elastic-sla-" + orch::RandomUuid().substr(0, 8);
    std::filesystem::create_directories(dir);
    const auto write = [&](const std::string& text) {
        std::ofstream(dir + "/sla.yaml") << text;
        return orch::ConfigTree::FromYaml(
            "placement:\n  sla: {type: file, path: \"" + dir +
                "/sla.yaml\"}\nelastic:\n  enabled: true\n  prometheus_url: http://127.0.0.1:9\n  max_step: 2\n"
                "  cooldown: 60s\n",
            "test"
        );
    };
    auto tree = write(
        "batch:\n  preferences: []\n  sla: []\n  elastic: {max_step: 1, cooldown: 10s, scale_out_above: 4}\n"
        "other:\n  preferences: []\n  sla: []\n"
    );
    REQUIRE(tree);
    const auto config = orch::app::ParseElasticConfig(*tree);
    REQUIRE(config);
    CHECK(config->sweep.settings.max_step == 2);
    REQUIRE(config->sweep.by_group.count("batch") == 1);
    CHECK(config->sweep.by_group.count("other") == 0);  // the defaults
    const auto& batch = config->sweep.by_group.at("batch");
    CHECK(batch.max_step == 1);
    CHECK(batch.cooldown == seconds(10));
    CHECK(batch.scale_out_above == 4);
    CHECK(batch.sustain == config->sweep.settings.sustain);  // not written: the operator's

    tree = write("batch:\n  elastic: {max_step: many}\n");
    REQUIRE(tree);
    const auto bad = orch::app::ParseElasticConfig(*tree);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("batch.elastic.max_step"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("elastic: the sweep applies the deployment's group policy", "[elastic]") {
    Rig rig;
    orch::workflow::ElasticSettings slow = rig.options.settings;
    slow.max_step = 1;
    rig.options.by_group.emplace("batch", slow);
    orch::service::DeploymentDraft draft{CorpusFile(kK8sElastic), Json{{"wn_num", 3}}};
    draft.owner = orch::domain::Owner{"https://iam.example/", "alice"};
    draft.user_group = "batch";
    auto created = orch::service::BuildNewDeployment(rig.templates, draft, {}, rig.clock.now());
    REQUIRE(created);
    REQUIRE(rig.stores.deployments.Create(*created));
    rig.Complete();
    const std::string id = created->deployment.id;
    auto sweep = rig.Sweep();
    rig.queue = 5;
    sweep.RunOnce();
    rig.clock.Advance(seconds(20));
    CHECK(sweep.RunOnce() == 1);
    CHECK(rig.LiveWorkers(id) == 1);  // the group's step of one, not the default two
}

namespace {

// The database lost from the moment a scale committed (a replica killed, or PostgreSQL
// restarted, right after it): every later write of the elastic memory fails.
class LostAfterScale final : public orch::workflow::ElasticStore {
   public:
    LostAfterScale(orch::workflow::ElasticStore& inner, std::function<bool()> scaled)
        : inner_(inner), scaled_(std::move(scaled)) {}
    orch::Result<std::vector<std::string>> Candidates(int limit) override { return inner_.Candidates(limit); }
    orch::Result<std::optional<orch::workflow::ElasticMemory>> ClaimTurn(
        const std::string& id, orch::workflow::ElasticTime now, std::chrono::milliseconds gap
    ) override {
        return inner_.ClaimTurn(id, now, gap);
    }
    orch::Status Save(
        const std::string& id,
        const orch::workflow::ElasticMemory& memory,
        const std::optional<orch::domain::Event>& event
    ) override {
        if (scaled_()) {
            return orch::Error::Unavailable("the database went away");
        }
        return inner_.Save(id, memory, event);
    }

   private:
    orch::workflow::ElasticStore& inner_;
    std::function<bool()> scaled_;
};

}  // namespace

TEST_CASE("elastic: a scale is never left without its decision event", "[elastic][reliability]") {
    Rig rig;
    const std::string id = rig.Running(CorpusFile(kK8sElastic), Json{{"wn_num", 3}});
    const auto scaled = [&] {
        return rig.StatusOf(id) == orch::domain::Status::kUpdateInProgress;
    };
    LostAfterScale lost(rig.elastic, scaled);
    orch::api::ElasticSweep sweep(
        rig.ctx,
        lost,
        [&rig](const orch::domain::Deployment&) -> orch::Result<std::optional<double>> {
            return std::optional<double>(rig.queue);
        },
        rig.options
    );
    rig.queue = 5;
    for (int i = 0; i < 4; ++i) {
        (void)sweep.RunOnce();
        rig.clock.Advance(seconds(10));
    }
    REQUIRE(scaled());
    int decisions = 0;
    for (const auto& e : rig.stores.db.events()) {
        decisions += e.event.type == orch::domain::EventType::kElasticScale ? 1 : 0;
    }
    CHECK(decisions == 1);
}
