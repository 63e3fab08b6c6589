#pragma once

// What the store contract's files (tests/support/contract/*_contract.cpp) share: the owners, a
// deployment spec and the helpers that add, read and step deployments on a StoreFixture.
#include "test_support/store_contract.hpp"

#include <orchestrator/auth/principal.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::test::contract {

using domain::NodeState;
using DStatus = domain::Status;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

inline const domain::Owner kAlice{"https://iam-a/", "alice", "alice.u", "alice@example.org"};
inline const domain::Owner kBob{"https://iam-a/", "bob"};
inline const domain::Owner kCarol{"https://iam-b/", "carol"};

// What a caller of `issuer` sees (nullopt: the local user of auth-disabled mode).
auth::OwnerFilter Scope(const std::optional<std::string>& issuer);

store::ListQuery Query(auth::OwnerFilter owner = Scope(std::nullopt));

// Whole seconds (both stores keep at least that precision), fixed once per fixture.
domain::TimePoint Base(StoreFixture& f);

struct Spec {
    std::optional<domain::Owner> owner;
    seconds offset{0};
    std::string group;
    DStatus status = DStatus::kCreateInProgress;
    int resources = 0;
    std::optional<int> timeout_mins;
    std::string callback;
    std::string target_region;
    std::optional<bool> self_healing;
    std::optional<int> max_wait_mins;
};

std::string Add(StoreFixture& f, const Spec& spec);

std::vector<std::string> Ids(const store::Page<domain::Deployment>& page);

store::Page<domain::Deployment> MustList(StoreFixture& f, const store::ListQuery& q);

domain::Deployment MustGet(StoreFixture& f, const std::string& id);

ErrorCode CodeOf(const Status& s);

// Claims the due job of `id` for `owner`; any other due job is given back at once.
workflow::Job ClaimFor(StoreFixture& f, const std::string& id, const std::string& owner = "w1");
/// An event of `type` stamped with the fixture's clock (to the millisecond, as stored).
domain::Event MakeEvent(StoreFixture& f, domain::EventType type, Json data);

// Runs the deploy step's outcome: CREATE_COMPLETE, every resource STARTED.
void Complete(StoreFixture& f, const std::string& id);

std::map<std::string, NodeState> States(StoreFixture& f, const std::string& id);

std::vector<std::string> ResourceIds(StoreFixture& f, const std::string& id);

}  // namespace orch::test::contract
