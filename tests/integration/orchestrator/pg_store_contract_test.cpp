// The store contract (test_support/store_contract.hpp) on PgDeploymentStore and PgWorkflowStore,
// each case on a fresh database: what the in-memory fakes of the unit tier are held to.
#include "test_support/store_contract.hpp"
#include "test_support/test_env.hpp"

#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>
#include <orchestrator/store/pg_elastic_store.hpp>
#include <orchestrator/store/pg_event_store.hpp>
#include <orchestrator/store/pg_iam_client_store.hpp>
#include <orchestrator/store/pg_idle_store.hpp>
#include <orchestrator/store/pg_lease_store.hpp>
#include <orchestrator/store/pg_pool.hpp>
#include <orchestrator/store/pg_workflow_store.hpp>

#include <catch2/catch.hpp>

#include <thread>

namespace {

using namespace orch::test::contract;

class PgFixture final : public StoreFixture {
   public:
    PgFixture() {
        if (!orch::store::ApplyMigrations(pool_)) {
            throw std::runtime_error("migrations failed");
        }
    }
    orch::store::DeploymentStore& deployments() override { return deployments_; }
    orch::workflow::WorkflowStore& workflow() override { return workflow_; }
    orch::workflow::IdleStore& idle() override { return idle_; }
    orch::store::EventStore& events() override { return events_; }
    orch::workflow::ElasticStore& elastic() override { return elastic_; }
    orch::workflow::LeaseStore& leases() override { return leases_; }
    orch::auth::IamClientStore& iam_clients() override { return iam_clients_; }
    orch::domain::TimePoint Now() override { return std::chrono::system_clock::now(); }
    // The database reads its own clock (now()): only real time passes for it.
    void Elapse(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }

   private:
    orch::test::TestDatabase db_;
    orch::store::PgPool pool_{orch::store::PgPoolOptions{.dsn = db_.dsn(), .size = 8}};
    orch::store::PgDeploymentStore deployments_{pool_};
    orch::store::PgWorkflowStore workflow_{pool_};
    orch::store::PgEventStore events_{pool_};
    orch::store::PgElasticStore elastic_{pool_};
    orch::store::PgIdleStore idle_{pool_};
    orch::store::PgLeaseStore leases_{pool_};
    orch::store::PgIamClientStore iam_clients_{pool_};
};

const Factory kMake = [] {
    return std::make_unique<PgFixture>();
};

}  // namespace

TEST_CASE("pg stores: create, get, resources", "[store][contract]") {
    CreateGetAndResources(kMake);
}
TEST_CASE("pg stores: instances a site reports beyond the rows are added", "[store][contract]") {
    ReportedInstancesAdded(kMake);
}
TEST_CASE("pg stores: owner scoping", "[store][contract]") {
    OwnerScoping(kMake);
}
TEST_CASE("pg stores: pagination and sort", "[store][contract]") {
    PaginationAndSort(kMake);
}
TEST_CASE("pg stores: status transitions", "[store][contract]") {
    StatusTransitions(kMake);
}
TEST_CASE("pg stores: concurrent requests, one wins", "[store][contract]") {
    ConcurrentRequestsOneWins(kMake);
}
TEST_CASE("pg stores: lease fencing", "[store][contract]") {
    LeaseFencing(kMake);
}
TEST_CASE("pg stores: job timing", "[store][contract]") {
    JobTiming(kMake);
}
TEST_CASE("pg stores: poll now", "[store][contract]") {
    PollNowMovesWaitingPoll(kMake);
}
TEST_CASE("pg stores: a queued reservation writes its wait event", "[store][contract]") {
    QueuedWaitWritesItsEvent(kMake);
}
TEST_CASE("pg stores: attempts", "[store][contract]") {
    AttemptsRecorded(kMake);
}
TEST_CASE("pg stores: log appended and bounded", "[store][contract]") {
    LogAppended(kMake);
}
TEST_CASE("pg stores: purge of deleted deployments", "[store][contract]") {
    PurgeDeleted(kMake);
}
TEST_CASE("pg stores: event log", "[store][contract]") {
    EventLog(kMake);
}
TEST_CASE("pg stores: event window scope", "[store][contract]") {
    EventWindowScope(kMake);
}
TEST_CASE("pg stores: admission accounting", "[store][contract]") {
    AdmissionAccounting(kMake);
}
TEST_CASE("pg stores: admission race", "[store][contract]") {
    AdmissionRace(kMake);
}
TEST_CASE("pg stores: fair-share history", "[store][contract]") {
    FairShareHistory(kMake);
}

TEST_CASE("pg stores: admission per GPU class", "[store][contract]") {
    AdmissionGpuClasses(kMake);
}
TEST_CASE("pg stores: admission of an update (scale up, down, failed, deleted)", "[store][contract]") {
    AdmissionUpdate(kMake);
}
TEST_CASE("pg stores: fair-share history per GPU class", "[store][contract]") {
    FairShareClassHistory(kMake);
}
TEST_CASE("pg stores: admission move to another candidate", "[store][contract]") {
    AdmissionMove(kMake);
}
TEST_CASE("pg stores: callback outbox", "[store][contract]") {
    CallbackOutbox(kMake);
}
TEST_CASE("pg stores: admission queue", "[store][contract]") {
    AdmissionQueue(kMake);
}
TEST_CASE("pg stores: admission queue follows its job", "[store][contract]") {
    AdmissionQueueFollowsItsJob(kMake);
}
TEST_CASE("pg stores: elastic state", "[store][contract]") {
    ElasticState(kMake);
}
TEST_CASE("pg stores: an update's events commit with it", "[store][contract]") {
    UpdateEvents(kMake);
}

TEST_CASE("pg stores: self-healing option and redeploy deadline", "[store][contract]") {
    SelfHealing(kMake);
}

TEST_CASE("pg stores: idle reclamation", "[store][contract]") {
    IdleReclamation(kMake);
}

TEST_CASE("pg stores: leases", "[store][contract]") {
    Leases(kMake);
}

TEST_CASE("pg stores: IAM client records", "[store][contract]") {
    IamClientRecords(kMake);
}
