// The store contract (store_contract.hpp) on deployment leases (migration 0011).
#include "contract_helpers.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

namespace orch::test::contract {

namespace {

std::vector<domain::Event> EventsOf(StoreFixture& f, const std::string& id, domain::EventType type) {
    std::vector<domain::Event> out;
    // Named first: a range-for over a temporary Result's value() reads a destroyed object.
    auto events = f.events().After({.owner = Scope(std::nullopt), .deployment_id = id}).value();
    for (auto& e : events) {
        if (e.type == type) {
            out.push_back(std::move(e));
        }
    }
    return out;
}

std::size_t DeliveriesOf(StoreFixture& f, const std::string& id) {
    std::size_t n = 0;
    const auto claimed = f.workflow().ClaimCallbacks("lease-test", 100, minutes(10)).value();
    for (const auto& d : claimed) {
        n += d.deployment_id == id ? 1 : 0;
    }
    return n;
}

domain::Event LeaseEvent(domain::EventType type, const std::string& id, StoreFixture& f) {
    domain::Event e;
    e.deployment_id = id;
    e.type = type;
    e.time = f.Now();
    return e;
}

}  // namespace

void Leases(const Factory& make) {
    using workflow::ExpireOutcome;
    auto f = make();
    const auto end = Base(*f) + std::chrono::hours(2);
    // A lease set at create (and shown by GET); another renewed later; one without a lease.
    store::NewDeployment n;
    n.deployment.id = SequentialUuid();
    n.deployment.created_at = Base(*f);
    n.deployment.updated_at = Base(*f);
    n.deployment.template_text = "t";
    n.deployment.callback = "https://hooks.example.org/lease";
    n.deployment.kind = tosca::DeploymentKind::kMarathon;
    n.deployment.expires_at = end;
    n.deployment.lease_action = domain::LeaseAction::kStop;
    for (int i = 0; i < 2; ++i) {
        domain::Resource r;
        r.id = SequentialUuid();
        r.created_at = Base(*f) + seconds(i);
        r.node_name = "app";
        r.node_type = "tosca.nodes.indigo.Container.Application.Docker.Marathon";
        r.type_chain = {r.node_type, "tosca.nodes.Root"};
        r.instance_index = i;
        n.resources.push_back(std::move(r));
    }
    REQUIRE(f->deployments().Create(n));
    const std::string stopped = n.deployment.id;
    CHECK(MustGet(*f, stopped).expires_at == end);
    const std::string deleted = Add(*f, {.offset = seconds(1), .callback = "https://hooks.example.org/lease"});
    const std::string unleased = Add(*f, {.offset = seconds(2)});
    CHECK_FALSE(MustGet(*f, deleted).expires_at.has_value());
    REQUIRE(f->deployments().RenewLease(deleted, end - minutes(30)));
    CHECK(MustGet(*f, deleted).expires_at == end - minutes(30));
    CHECK(CodeOf(f->deployments().RenewLease(SequentialUuid(), end)) == ErrorCode::kNotFound);
    (void)unleased;
    // Brought to CREATE_COMPLETE with their nodes STARTED.
    for (const auto& id : {stopped, deleted}) {
        workflow::Transition t;
        t.status = DStatus::kCreateComplete;
        t.resources_state = NodeState::kStarted;
        REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", t));
    }
    (void)DeliveriesOf(*f, stopped);  // the completions' deliveries: claimed away

    // Due by their end, soonest first; the one without a lease never.
    CHECK(f->leases().DueLeases(end - minutes(31), 10).value().empty());
    auto due = f->leases().DueLeases(end, 10).value();
    REQUIRE(due.size() == 2);
    CHECK(due[0].deployment_id == deleted);
    CHECK(due[1].deployment_id == stopped);
    CHECK(due[1].action == domain::LeaseAction::kStop);
    CHECK(due[1].warnings_sent == 0);
    CHECK(due[1].state == workflow::LeaseState::kActive);
    CHECK(due[1].kind == tosca::DeploymentKind::kMarathon);
    CHECK(f->leases().DueLeases(end, 1).value().size() == 1);

    // Each warning once, with its event and callback delivery; a stale expiry writes nothing.
    const auto warning = LeaseEvent(domain::EventType::kLeaseWarning, stopped, *f);
    CHECK(f->leases().RecordWarning(stopped, end, 1, warning).value());
    CHECK_FALSE(f->leases().RecordWarning(stopped, end, 1, warning).value());
    CHECK_FALSE(f->leases().RecordWarning(stopped, end + seconds(1), 2, warning).value());
    CHECK(f->leases().RecordWarning(stopped, end, 2, warning).value());
    CHECK(EventsOf(*f, stopped, domain::EventType::kLeaseWarning).size() == 2);
    CHECK(DeliveriesOf(*f, stopped) == 2);
    CHECK(f->leases().DueLeases(end, 10).value()[1].warnings_sent == 2);

    // Delete: queued as DELETE queues it, once; then the lease is over.
    const auto expired = LeaseEvent(domain::EventType::kLeaseExpired, deleted, *f);
    CHECK(f->leases().Expire(deleted, end, domain::LeaseAction::kDelete, {}, expired).value() == ExpireOutcome::kStale);
    CHECK(
        f->leases().Expire(deleted, end - minutes(30), domain::LeaseAction::kDelete, {}, expired).value() ==
        ExpireOutcome::kDeleting
    );
    CHECK(MustGet(*f, deleted).status == DStatus::kDeleteInProgress);
    CHECK(ClaimFor(*f, deleted).kind == workflow::JobKind::kDelete);
    CHECK(
        f->leases().Expire(deleted, end - minutes(30), domain::LeaseAction::kDelete, {}, expired).value() ==
        ExpireOutcome::kStale
    );
    CHECK(EventsOf(*f, deleted, domain::EventType::kLeaseExpired).size() == 1);
    CHECK(DeliveriesOf(*f, deleted) == 1);
    CHECK(CodeOf(f->deployments().RenewLease(deleted, end + std::chrono::hours(1))) == ErrorCode::kConflict);

    // Stop: one node at a time through the action step, waiting while a step runs.
    const std::vector<std::string> types{"tosca.nodes.indigo.Container.Application.Docker.Marathon"};
    auto stop_event = LeaseEvent(domain::EventType::kLeaseExpired, stopped, *f);
    const auto first_attempt = end + minutes(5);
    stop_event.time = first_attempt;
    const auto stop_began = [&](domain::TimePoint until) -> std::optional<domain::TimePoint> {
        const auto due_now = f->leases().DueLeases(until, 10).value();  // named: see EventsOf
        for (const auto& lease : due_now) {
            if (lease.deployment_id == stopped) {
                return lease.stop_began;
            }
        }
        FAIL("the lease is not due");
        return std::nullopt;
    };
    CHECK_FALSE(stop_began(end).has_value());  // not tried yet
    CHECK(
        f->leases().Expire(stopped, end, domain::LeaseAction::kStop, types, stop_event).value() ==
        ExpireOutcome::kStopping
    );
    stop_event.time = first_attempt + minutes(10);
    CHECK(
        f->leases().Expire(stopped, end, domain::LeaseAction::kStop, types, stop_event).value() == ExpireOutcome::kBusy
    );
    // The retry cap counts from the first attempt, which later attempts leave as it was.
    CHECK(stop_began(end) == first_attempt);
    for (int node = 0; node < 2; ++node) {
        const auto job = ClaimFor(*f, stopped);
        CHECK(job.kind == workflow::JobKind::kAction);
        CHECK(job.payload.value("action", "") == "stop");
        workflow::ResourceChange change;
        change.id = job.payload.value("resource", "");
        change.state = NodeState::kStopped;
        workflow::Transition t;
        t.resource_changes.push_back(change);
        REQUIRE(f->workflow().Commit(job, "w1", t));
        const auto next = f->leases().Expire(stopped, end, domain::LeaseAction::kStop, types, stop_event).value();
        CHECK(next == (node == 0 ? ExpireOutcome::kStopping : ExpireOutcome::kExpired));
    }
    CHECK(MustGet(*f, stopped).status == DStatus::kCreateComplete);
    CHECK(EventsOf(*f, stopped, domain::EventType::kLeaseExpired).size() == 1);
    CHECK(f->leases().DueLeases(end, 10).value().empty());
    // A renewal starts a new lease: due again, its warnings owed again.
    REQUIRE(f->deployments().RenewLease(stopped, end + std::chrono::hours(1)));
    due = f->leases().DueLeases(end + std::chrono::hours(1), 10).value();
    REQUIRE(due.size() == 1);
    CHECK(due[0].warnings_sent == 0);
    CHECK(due[0].state == workflow::LeaseState::kActive);
    CHECK_FALSE(due[0].stop_began.has_value());  // the former lease's attempt is not this one's

    // A stop given up (the retry cap): the lease is over, the reason shown, the owner told; once.
    const auto renewed = end + std::chrono::hours(1);
    CHECK_FALSE(f->leases().AbandonStop(stopped, end, "gave up", stop_event).value());  // stale end
    CHECK(f->leases().AbandonStop(stopped, renewed, "gave up", stop_event).value());
    CHECK_FALSE(f->leases().AbandonStop(stopped, renewed, "gave up", stop_event).value());
    CHECK(MustGet(*f, stopped).status == DStatus::kCreateComplete);
    CHECK(MustGet(*f, stopped).status_reason == "gave up");
    CHECK(EventsOf(*f, stopped, domain::EventType::kLeaseExpired).size() == 2);
    CHECK(DeliveriesOf(*f, stopped) >= 1);
    CHECK(f->leases().DueLeases(renewed, 10).value().empty());
}

}  // namespace orch::test::contract
