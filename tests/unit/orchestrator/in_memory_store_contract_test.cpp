// The store contract (test_support/store_contract.hpp) on the in-memory fakes the unit tests
// use; tests/integration/orchestrator/pg_store_contract_test.cpp runs the same on PostgreSQL.
#include "test_support/in_memory_elastic_store.hpp"
#include "test_support/in_memory_iam_client_store.hpp"
#include "test_support/in_memory_idle_store.hpp"
#include "test_support/in_memory_stores.hpp"
#include "test_support/store_contract.hpp"

#include <catch2/catch.hpp>

namespace {

using namespace orch::test::contract;

class InMemoryFixture final : public StoreFixture {
   public:
    orch::store::DeploymentStore& deployments() override { return stores_.deployments; }
    orch::workflow::WorkflowStore& workflow() override { return stores_.workflow; }
    orch::workflow::IdleStore& idle() override { return idle_; }
    orch::store::EventStore& events() override { return stores_.events; }
    orch::workflow::ElasticStore& elastic() override { return elastic_; }
    orch::workflow::LeaseStore& leases() override { return stores_.leases; }
    orch::auth::IamClientStore& iam_clients() override { return iam_clients_; }
    orch::domain::TimePoint Now() override { return clock_.now(); }
    void Elapse(std::chrono::milliseconds d) override { clock_.Advance(d); }

   private:
    orch::ManualClock clock_;
    orch::test::InMemoryStores stores_{clock_};
    orch::test::InMemoryElasticStore elastic_{stores_.db};
    orch::test::InMemoryIdleStore idle_{stores_.db};
    orch::test::InMemoryIamClientStore iam_clients_;
};

const Factory kMake = [] {
    return std::make_unique<InMemoryFixture>();
};

}  // namespace

TEST_CASE("in-memory stores: create, get, resources", "[store][contract]") {
    CreateGetAndResources(kMake);
}
TEST_CASE("in-memory stores: instances a site reports beyond the rows are added", "[store][contract]") {
    ReportedInstancesAdded(kMake);
}
TEST_CASE("in-memory stores: owner scoping", "[store][contract]") {
    OwnerScoping(kMake);
}
TEST_CASE("in-memory stores: pagination and sort", "[store][contract]") {
    PaginationAndSort(kMake);
}
TEST_CASE("in-memory stores: status transitions", "[store][contract]") {
    StatusTransitions(kMake);
}
TEST_CASE("in-memory stores: concurrent requests, one wins", "[store][contract]") {
    ConcurrentRequestsOneWins(kMake);
}
TEST_CASE("in-memory stores: lease fencing", "[store][contract]") {
    LeaseFencing(kMake);
}
TEST_CASE("in-memory stores: job timing", "[store][contract]") {
    JobTiming(kMake);
}
TEST_CASE("in-memory stores: poll now", "[store][contract]") {
    PollNowMovesWaitingPoll(kMake);
}
TEST_CASE("in-memory stores: a queued reservation writes its wait event", "[store][contract]") {
    QueuedWaitWritesItsEvent(kMake);
}
TEST_CASE("in-memory stores: attempts", "[store][contract]") {
    AttemptsRecorded(kMake);
}
TEST_CASE("in-memory stores: log appended and bounded", "[store][contract]") {
    LogAppended(kMake);
}
TEST_CASE("in-memory stores: purge of deleted deployments", "[store][contract]") {
    PurgeDeleted(kMake);
}
TEST_CASE("in-memory stores: event log", "[store][contract]") {
    EventLog(kMake);
}
TEST_CASE("in-memory stores: event window scope", "[store][contract]") {
    EventWindowScope(kMake);
}
TEST_CASE("in-memory stores: admission accounting", "[store][contract]") {
    AdmissionAccounting(kMake);
}
TEST_CASE("in-memory stores: admission race", "[store][contract]") {
    AdmissionRace(kMake);
}
TEST_CASE("in-memory stores: fair-share history", "[store][contract]") {
    FairShareHistory(kMake);
}

TEST_CASE("in-memory stores: admission per GPU class", "[store][contract]") {
    AdmissionGpuClasses(kMake);
}
TEST_CASE("in-memory stores: admission of an update (scale up, down, failed, deleted)", "[store][contract]") {
    AdmissionUpdate(kMake);
}
TEST_CASE("in-memory stores: fair-share history per GPU class", "[store][contract]") {
    FairShareClassHistory(kMake);
}
TEST_CASE("in-memory stores: admission move to another candidate", "[store][contract]") {
    AdmissionMove(kMake);
}
TEST_CASE("in-memory stores: callback outbox", "[store][contract]") {
    CallbackOutbox(kMake);
}
TEST_CASE("in-memory stores: admission queue", "[store][contract]") {
    AdmissionQueue(kMake);
}
TEST_CASE("in-memory stores: admission queue follows its job", "[store][contract]") {
    AdmissionQueueFollowsItsJob(kMake);
}
TEST_CASE("in-memory stores: elastic state", "[store][contract]") {
    ElasticState(kMake);
}
TEST_CASE("in-memory stores: an update's events commit with it", "[store][contract]") {
    UpdateEvents(kMake);
}

TEST_CASE("in-memory stores: self-healing option and redeploy deadline", "[store][contract]") {
    SelfHealing(kMake);
}

TEST_CASE("in-memory stores: idle reclamation", "[store][contract]") {
    IdleReclamation(kMake);
}

TEST_CASE("in-memory stores: leases", "[store][contract]") {
    Leases(kMake);
}

TEST_CASE("in-memory stores: IAM client records", "[store][contract]") {
    IamClientRecords(kMake);
}
