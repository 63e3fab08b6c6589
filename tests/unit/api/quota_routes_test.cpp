// GET /quotas through the router over the in-memory stores: each caller sees their own groups of
// their own issuer (admins: every group of it), never another issuer's counters or hours.
#include "test_support/handler_harness.hpp"
#include "test_support/in_memory_idle_store.hpp"

#include <common/uuid.hpp>
#include <orchestrator/api/quota_routes.hpp>

#include <catch2/catch.hpp>

namespace orch::test {
namespace {

using workflow::QuotaResource;
using workflow::QuotaScope;

struct QuotaRig {
    HandlerHarness h;
    InMemoryIdleStore idle{h.stores.db};
    api::QuotaApi api{h.ctx, h.stores.workflow, idle, {}};

    QuotaRig() {
        api.quotas.groups["gpu-team"].group.gpus = 8;
        api::RegisterQuotaRoutes(h.router, api);
        Counter({QuotaScope::kGroup, "https://iam.example/", "gpu-team", "", "", QuotaResource::kGpus}, 1, 2);
        Counter(
            {QuotaScope::kGroupOnService, "https://iam.example/", "gpu-team", "", "SITE_k8s", QuotaResource::kGpus},
            1,
            2
        );
        Counter({QuotaScope::kUser, "https://iam.example/", "gpu-team", "alice", "", QuotaResource::kGpus}, 1, 2);
        Counter({QuotaScope::kGroup, "https://iam.example/", "other-team", "", "", QuotaResource::kCpus}, 0, 16);
        Counter({QuotaScope::kGroup, "https://other.example/", "gpu-team", "", "", QuotaResource::kGpus}, 0, 64);
        Reclaim("https://iam.example/", "gpu-team");
        Reclaim("https://other.example/", "gpu-team");
    }

    void Counter(const workflow::CounterKey& key, double reserved, double in_use) {
        const std::lock_guard lock(h.stores.db.mutex());
        h.stores.db.counters()[key] = workflow::QuotaCounter{key, reserved, in_use};
    }

    // A running 2-GPU deployment of `issuer`/`group` taken through notice and a delete.
    void Reclaim(const std::string& issuer, const std::string& group) {
        store::NewDeployment n;
        n.deployment.id = SequentialUuid();
        n.deployment.owner = domain::Owner{issuer, "someone"};
        n.deployment.user_group = group;
        n.deployment.req_gpus = 2;
        REQUIRE(h.stores.deployments.Create(n));
        {
            const std::lock_guard lock(h.stores.db.mutex());
            h.stores.db.rows().at(n.deployment.id).deployment.status = domain::Status::kCreateComplete;
        }
        for (const auto step :
             {workflow::IdleStep::kStartWatch, workflow::IdleStep::kNotify, workflow::IdleStep::kReclaim}) {
            workflow::IdleChange c;
            c.deployment_id = n.deployment.id;
            c.step = step;
            c.action = workflow::IdleAction::kDelete;
            c.gpu_hours = 3;
            REQUIRE(idle.ApplyIdle(c).value());
        }
    }

    Json Get() {
        const auto response = h.Call("GET", "/quotas");
        REQUIRE(response.status == 200);
        return Json::parse(response.body);
    }
};

std::vector<std::string> GroupNames(const Json& body) {
    std::vector<std::string> names;
    for (const auto& g : body["groups"]) {
        names.push_back(g["group"]);
    }
    return names;
}

TEST_CASE("GET /quotas: a member sees their groups of their issuer only", "[api][quotas]") {
    QuotaRig rig;
    auto alice = HandlerHarness::User("https://iam.example/", "alice");
    alice.groups = std::vector<std::string>{"gpu-team"};
    rig.h.principal() = alice;
    const Json body = rig.Get();
    CHECK(body["issuer"] == "https://iam.example/");
    REQUIRE(GroupNames(body) == std::vector<std::string>{"gpu-team"});
    const Json& g = body["groups"][0];
    CHECK(g["limits"]["gpus"] == 8);
    CHECK(g["limits"]["cpus"].is_null());
    CHECK(g["usage"]["gpus"] == 2);  // not the other issuer's 64
    CHECK(g["reserved"]["gpus"] == 1);
    REQUIRE(g["sites"].size() == 1);
    CHECK(g["sites"][0]["serviceId"] == "SITE_k8s");
    CHECK(g["reclaimedGpuHours"] == 3);  // the other issuer's same-named group not added
    CHECK(g["reclamations"] == 1);
    CHECK(g["queued"]["deployments"] == 0);
}

TEST_CASE("GET /quotas: a caller with no group sees none, an unknown group is listed empty", "[api][quotas]") {
    QuotaRig rig;
    auto bob = HandlerHarness::User("https://iam.example/", "bob");
    bob.groups = std::nullopt;  // no groups claim
    rig.h.principal() = bob;
    CHECK(GroupNames(rig.Get()).empty());
    bob.groups = std::vector<std::string>{"new-team"};
    rig.h.principal() = bob;
    const Json body = rig.Get();
    REQUIRE(GroupNames(body) == std::vector<std::string>{"new-team"});
    CHECK(body["groups"][0]["usage"]["gpus"] == 0);
    CHECK(body["groups"][0]["reclaimedGpuHours"] == 0);
}

TEST_CASE("GET /quotas: an admin sees every group of their issuer, not another issuer's", "[api][quotas]") {
    QuotaRig rig;
    auto admin = HandlerHarness::User("https://iam.example/", "root");
    admin.admin = true;
    rig.h.principal() = admin;
    const Json body = rig.Get();
    CHECK(GroupNames(body) == std::vector<std::string>{"gpu-team", "other-team"});
    CHECK(body["groups"][0]["usage"]["gpus"] == 2);
    CHECK(body["groups"][1]["usage"]["cpus"] == 16);
    CHECK(body["groups"][1]["limits"]["gpus"].is_null());

    auto carol = HandlerHarness::User("https://other.example/", "carol");
    carol.admin = true;
    rig.h.principal() = carol;
    const Json other = rig.Get();
    REQUIRE(GroupNames(other) == std::vector<std::string>{"gpu-team"});
    CHECK(other["groups"][0]["usage"]["gpus"] == 64);
}

}  // namespace
}  // namespace orch::test
