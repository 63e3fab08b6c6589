// The store contract (store_contract.hpp) on per-deployment OAuth client records.
#include "contract_helpers.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

namespace orch::test::contract {

void IamClientRecords(const Factory& make) {
    using auth::IamClientRecord;
    using auth::IamClientState;
    auto f = make();
    auto& store = f->iam_clients();
    const auto t0 = Base(*f) + milliseconds(1) + std::chrono::microseconds(7);
    const std::string deployment = RandomUuid();
    IamClientRecord first{
        .id = RandomUuid(),
        .deployment_id = deployment,
        .node_name = "iam_client",
        .issuer = "https://iam-a/",
        .created_at = t0};
    IamClientRecord second = first;
    second.id = RandomUuid();
    second.node_name = "other_client";
    second.created_at = t0 + seconds(1);
    IamClientRecord elsewhere = first;
    elsewhere.id = RandomUuid();
    elsewhere.deployment_id = RandomUuid();
    elsewhere.created_at = t0 + seconds(2);
    // No deployment row exists for either deployment: records stand on their own.
    REQUIRE(store.Reserve(second));
    REQUIRE(store.Reserve(first));
    REQUIRE(store.Reserve(elsewhere));
    const auto again = store.Reserve(first);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == ErrorCode::kConflict);

    auto mine = store.ForDeployment(deployment).value();
    REQUIRE(mine.size() == 2);
    CHECK(mine[0] == first);  // oldest first, state registering, times to the microsecond
    CHECK(mine[1] == second);
    CHECK(mine[0].state == IamClientState::kRegistering);

    REQUIRE(store.MarkRegistered(first.id, "client-1", "https://iam-a/register/client-1", "v1.sealed"));
    REQUIRE(store.MarkUnconfirmed(second.id));
    mine = store.ForDeployment(deployment).value();
    REQUIRE(mine.size() == 2);
    CHECK(mine[0].state == IamClientState::kRegistered);
    CHECK(mine[0].client_id == "client-1");
    CHECK(mine[0].registration_client_uri == "https://iam-a/register/client-1");
    CHECK(mine[0].sealed_registration_token == "v1.sealed");
    CHECK(mine[1].state == IamClientState::kUnconfirmed);
    const std::string absent = RandomUuid();
    CHECK(store.MarkRegistered(absent, "x", "https://iam-a/register/x", "v1.x").error().code == ErrorCode::kNotFound);
    CHECK(store.MarkUnconfirmed(absent).error().code == ErrorCode::kNotFound);

    // By age: strictly before, oldest first, limited.
    auto old = store.CreatedBefore(t0 + seconds(2), 10).value();
    REQUIRE(old.size() == 2);
    CHECK(old[0].id == first.id);
    CHECK(old[1].id == second.id);
    CHECK(store.CreatedBefore(t0 + seconds(3), 1).value().size() == 1);
    CHECK(store.CreatedBefore(t0, 10).value().empty());

    REQUIRE(store.Forget(first.id));
    REQUIRE(store.Forget(first.id));  // forgetting twice (a retried step) is fine
    mine = store.ForDeployment(deployment).value();
    REQUIRE(mine.size() == 1);
    CHECK(mine[0].id == second.id);
    CHECK(store.ForDeployment(elsewhere.deployment_id).value().size() == 1);
}

}  // namespace orch::test::contract
