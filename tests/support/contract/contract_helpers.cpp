// The store contract's shared helpers (contract_helpers.hpp).
#include "contract_helpers.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

namespace orch::test::contract {

// What a caller of `issuer` sees (nullopt: the local user of auth-disabled mode).
auth::OwnerFilter Scope(const std::optional<std::string>& issuer) {
    auth::Principal caller;
    caller.local = !issuer;
    caller.issuer = issuer.value_or("");
    return auth::OwnerFilter::VisibleTo(caller);
}

store::ListQuery Query(auth::OwnerFilter owner) {
    return store::ListQuery{.owner = std::move(owner)};
}

// Whole seconds (both stores keep at least that precision), fixed once per fixture.
domain::TimePoint Base(StoreFixture& f) {
    if (!f.base_time) {
        f.base_time = std::chrono::floor<seconds>(f.Now()) - minutes(10);
    }
    return *f.base_time;
}

std::string Add(StoreFixture& f, const Spec& spec) {
    store::NewDeployment n;
    auto& d = n.deployment;
    d.id = SequentialUuid();
    d.created_at = Base(f) + spec.offset;
    d.updated_at = d.created_at;
    d.status = spec.status;
    d.owner = spec.owner;
    d.user_group = spec.group;
    d.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    d.parameters = Json{{"count", 2}};
    d.options.timeout_mins = spec.timeout_mins;
    d.callback = spec.callback;
    d.options.target_region = spec.target_region;
    d.options.max_wait_mins = spec.max_wait_mins;
    d.options.target_provider = spec.target_region.empty() ? "" : "RECAS-BARI";
    d.options.self_healing = spec.self_healing;
    d.options.per_provider_max_retries = spec.target_region.empty() ? std::nullopt : std::optional<int>(3);
    d.kind = tosca::DeploymentKind::kMarathon;
    for (int i = 0; i < spec.resources; ++i) {
        domain::Resource r;
        r.id = SequentialUuid();
        r.deployment_id = d.id;
        r.created_at = d.created_at + seconds(i);
        r.updated_at = r.created_at;
        r.node_name = "app";
        r.node_type = "tosca.nodes.indigo.Container";
        r.type_chain = {"tosca.nodes.indigo.Container", "tosca.nodes.Root"};
        r.instance_index = i;
        n.resources.push_back(std::move(r));
    }
    REQUIRE(f.deployments().Create(n));
    return d.id;
}

std::vector<std::string> Ids(const store::Page<domain::Deployment>& page) {
    std::vector<std::string> ids;
    for (const auto& d : page.items) {
        ids.push_back(d.id);
    }
    return ids;
}

store::Page<domain::Deployment> MustList(StoreFixture& f, const store::ListQuery& q) {
    auto page = f.deployments().List(q);
    REQUIRE(page);
    return *page;
}

domain::Deployment MustGet(StoreFixture& f, const std::string& id) {
    auto got = f.deployments().Get(id);
    REQUIRE(got);
    REQUIRE(got->has_value());
    return **got;
}

ErrorCode CodeOf(const Status& s) {
    REQUIRE_FALSE(s);
    return s.error().code;
}

// Claims the due job of `id` for `owner`; any other due job is given back at once.
workflow::Job ClaimFor(StoreFixture& f, const std::string& id, const std::string& owner) {
    auto jobs = f.workflow().Claim(owner, 100, minutes(1));
    REQUIRE(jobs);
    std::optional<workflow::Job> mine;
    bool given_back = true;
    for (const auto& j : *jobs) {
        if (j.deployment_id == id && !mine) {
            mine = j;
        } else {
            given_back = given_back && f.workflow().Retry(j, owner, milliseconds(0), "not this test's");
        }
    }
    REQUIRE(given_back);
    REQUIRE(mine);
    return *mine;
}

// Runs the deploy step's outcome: CREATE_COMPLETE, every resource STARTED.
void Complete(StoreFixture& f, const std::string& id) {
    const auto job = ClaimFor(f, id);
    workflow::Transition t;
    t.status = DStatus::kCreateComplete;
    t.resources_state = NodeState::kStarted;
    REQUIRE(f.workflow().Commit(job, "w1", t));
}

std::map<std::string, NodeState> States(StoreFixture& f, const std::string& id) {
    auto page = f.deployments().ListResources(id, std::nullopt, 0, 100, {});
    REQUIRE(page);
    std::map<std::string, NodeState> out;
    for (const auto& r : page->items) {
        out[r.id] = r.state;
    }
    return out;
}

std::vector<std::string> ResourceIds(StoreFixture& f, const std::string& id) {
    std::vector<std::string> out;
    for (const auto& [rid, state] : States(f, id)) {
        out.push_back(rid);
    }
    return out;
}

domain::Event MakeEvent(StoreFixture& f, domain::EventType type, Json data) {
    domain::Event e;
    e.type = type;
    e.time = std::chrono::floor<milliseconds>(f.Now());
    e.data = std::move(data);
    return e;
}

}  // namespace orch::test::contract
