// The store contract (store_contract.hpp) on admission: quota accounting, fair-share history,
// racing reservations, GPU classes and the waiting queue.
#include "contract_helpers.hpp"

#include <orchestrator/workflow/admission_queue.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>

namespace orch::test::contract {

namespace {

// A place step's commit that reserves `gpus` GPUs of group g (limit `limit`) for Alice.
workflow::Transition Admit(double gpus, double limit, milliseconds retry = minutes(10)) {
    workflow::Transition t;
    t.status_reason = "placed";
    t.candidate_index = 0;
    t.next = workflow::NextJob{workflow::JobKind::kPoll, Json::object(), milliseconds(0), true};
    workflow::Admission admit;
    workflow::CounterKey key{workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus};
    admit.claims.push_back({key, gpus, limit});
    key.scope = workflow::QuotaScope::kUser;
    key.subject = kAlice.subject;
    admit.claims.push_back({key, gpus, limit + 10});
    admit.queued_reason = "queued: waiting in group g for " + std::to_string(static_cast<int>(gpus)) + " × GPU";
    admit.retry_delay = retry;
    t.admit = admit;
    return t;
}

// (reserved, in use) of group g's GPU counter, as Alice's issuer sees it.
std::pair<double, double> GroupGpus(StoreFixture& f) {
    const auto counters = f.workflow().QuotaCounters(kAlice.issuer, {"g"});
    REQUIRE(counters);
    for (const auto& c : *counters) {
        if (c.key.scope == workflow::QuotaScope::kGroup && c.key.resource == workflow::QuotaResource::kGpus) {
            return {c.reserved, c.in_use};
        }
    }
    return {0, 0};
}

workflow::Transition WithStatus(DStatus status) {
    workflow::Transition t;
    t.status = status;
    return t;
}

// An update's change of group g's GPUs (and Alice's), as the API computes it (UpdateClaims).
store::UpdateRequest Scale(const std::string& id, double gpus, double limit) {
    store::UpdateRequest u{.id = id, .template_text = "t", .parameters = Json::object()};
    workflow::CounterKey key{workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus};
    u.admission.push_back({key, gpus, limit});
    key.scope = workflow::QuotaScope::kUser;
    key.subject = kAlice.subject;
    u.admission.push_back({key, gpus, limit + 10});
    return u;
}

// Commits the deployment's due step (an update's) with `status`.
void Finish(StoreFixture& f, const std::string& id, DStatus status) {
    REQUIRE(f.workflow().Commit(ClaimFor(f, id), "w1", WithStatus(status)));
}

}  // namespace

void AdmissionUpdate(const Factory& make) {
    auto f = make();
    const std::string scaled = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string other = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, scaled), "w1", Admit(2, 4)));
    Finish(*f, scaled, DStatus::kCreateComplete);
    CHECK(GroupGpus(*f) == std::make_pair(0.0, 2.0));

    // A growth is reserved with the update; it becomes usage when the update completes.
    REQUIRE(f->deployments().BeginUpdate(Scale(scaled, 1, 4)));
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 2.0));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, other), "w1", Admit(1, 4)));  // the last free GPU
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 2.0));
    Finish(*f, scaled, DStatus::kUpdateComplete);
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 3.0));

    // No room: refused naming the quota, nothing of the update written.
    const auto refused = f->deployments().BeginUpdate(Scale(scaled, 1, 4));
    CHECK(CodeOf(refused) == ErrorCode::kConflict);
    CHECK_THAT(refused.error().message, Catch::Contains("group 'g'") && Catch::Contains("0 free now"));
    CHECK(MustGet(*f, scaled).status == DStatus::kUpdateComplete);
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 3.0));

    // A shrink gives back only once the update completes.
    REQUIRE(f->deployments().BeginUpdate(Scale(scaled, -2, 4)));
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 3.0));
    Finish(*f, scaled, DStatus::kUpdateComplete);
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 1.0));

    // A failed (rolled back) scale gives its growth back; the deployment keeps what it held.
    REQUIRE(f->deployments().BeginUpdate(Scale(scaled, 2, 4)));
    CHECK(GroupGpus(*f) == std::make_pair(3.0, 1.0));
    Finish(*f, scaled, DStatus::kUpdateFailed);
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 1.0));

    // A delete during an update gives back both what it held and the growth it reserved.
    REQUIRE(f->deployments().BeginUpdate(Scale(scaled, 1, 4)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 1.0));
    REQUIRE(f->deployments().BeginDelete(scaled, false));
    Finish(*f, scaled, DStatus::kDeleteComplete);
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 0.0));
    const auto counters = f->workflow().QuotaCounters(kAlice.issuer, {});
    for (const auto& c : counters.value()) {
        if (c.key.scope == workflow::QuotaScope::kUser) {
            CHECK(c.reserved + c.in_use == 1);  // the other deployment's
        }
    }
}

void FairShareClassHistory(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {.owner = kAlice, .group = "g"});
    workflow::Transition admit = Admit(2, 3);
    workflow::CounterKey a100{
        workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus, "A100"};
    admit.admit->claims.push_back({a100, 2, 4});
    std::sort(admit.admit->claims.begin(), admit.admit->claims.end(), [](const auto& a, const auto& b) {
        return a.key < b.key;
    });
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", admit));
    Finish(*f, id, DStatus::kCreateComplete);
    CHECK(f->workflow().FairShareClassUsage(kAlice.issuer, hours(24)).value().empty());  // held, not ended
    f->Elapse(milliseconds(300));
    REQUIRE(f->deployments().BeginDelete(id, false));
    Finish(*f, id, DStatus::kDeleteComplete);

    // 2 A100s for at least 0.3 s: the class's GPU-hours apart, and in the all-GPU figure as ever.
    const auto classes = f->workflow().FairShareClassUsage(kAlice.issuer, hours(24)).value();
    REQUIRE(classes.count("g") == 1);
    REQUIRE(classes.at("g").size() == 1);
    const double hours_a100 = classes.at("g").at("A100");
    CHECK(hours_a100 >= 2 * 0.3 / 3600 * 0.99);
    CHECK(hours_a100 <= 2 * 60.0 / 3600);
    CHECK(f->workflow().FairShareUsage(kAlice.issuer, hours(24)).value().at("g").gpus == Approx(hours_a100));
    CHECK(f->workflow().FairShareClassUsage(kCarol.issuer, hours(24)).value().empty());
}

// A reservation that does not fit writes, with its queued reason, the event and log line the
// step prepared for a wait that starts (and nothing else of the transition).
void QueuedWaitWritesItsEvent(const Factory& make) {
    auto f = make();
    const std::string holder = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string waiter = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, holder), "w1", Admit(2, 3)));
    const auto before = f->events().After({.owner = Scope(std::nullopt)}).value().size();
    workflow::Transition t = Admit(2, 3);
    t.events.push_back(MakeEvent(*f, domain::EventType::kPlacementDecided, Json{{"sites", {"site-a"}}}));
    t.admit->queued_events.push_back(MakeEvent(
        *f, domain::EventType::kProgress, Json{{"statusReason", t.admit->queued_reason}, {"waiting", "capacity"}}
    ));
    t.admit->queued_log = "2026-11-28T00:00:00.000Z queued (no site can take it now)\n";
    REQUIRE(f->workflow().Commit(ClaimFor(*f, waiter), "w1", t));
    CHECK(MustGet(*f, waiter).status_reason == t.admit->queued_reason);
    CHECK(f->deployments().GetLog(waiter).value() == t.admit->queued_log);
    const auto all = f->events().After({.owner = Scope(std::nullopt)}).value();
    REQUIRE(all.size() == before + 1);  // the wait's event, not the transition's placement event
    CHECK(all.back().deployment_id == waiter);
    CHECK(all.back().type == domain::EventType::kProgress);
    CHECK(all.back().data["waiting"] == "capacity");
}

void AdmissionAccounting(const Factory& make) {
    auto f = make();
    const std::string first = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string second = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, first), "w1", Admit(2, 3)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));
    CHECK(MustGet(*f, first).status_reason == "placed");

    // Over the limit: nothing of the transition is written, the job waits with the queued reason.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, second), "w1", Admit(2, 3)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));
    CHECK(MustGet(*f, second).status == DStatus::kCreateInProgress);
    CHECK(MustGet(*f, second).status_reason == "queued: waiting in group g for 2 × GPU");
    CHECK(f->workflow().Claim("w1", 10, minutes(1)).value().size() == 1);  // first's poll; second waits
    CHECK(f->workflow().QueueDepth().value() == std::make_pair(std::int64_t{1}, std::int64_t{1}));

    // Success turns the reservation into usage; failure gives everything back.
    const auto user = [&] {
        // Named, so the loop does not run over a reference into a destroyed temporary Result.
        const auto counters = f->workflow().QuotaCounters(kAlice.issuer, {});
        for (const auto& c : counters.value()) {
            if (c.key.scope == workflow::QuotaScope::kUser) {
                return c;
            }
        }
        return workflow::QuotaCounter{};
    };
    CHECK(user().key.subject == kAlice.subject);
    CHECK(user().reserved == 2);
    const std::string third = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, third), "w1", Admit(1, 3)));
    CHECK(GroupGpus(*f) == std::make_pair(3.0, 0.0));
    auto jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);  // third's poll (first's is leased to w1)
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kCreateComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 1.0));
    CHECK(user().in_use == 1);

    // Another issuer sees none of it.
    CHECK(f->workflow().QuotaCounters(kCarol.issuer, {}).value().empty());
    CHECK(f->workflow().QuotaCounters(kAlice.issuer, {"other"}).value().empty());

    // Delete of the completed one, then failure of the first: the counters are back to zero.
    REQUIRE(f->deployments().BeginDelete(third, false));
    jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kDeleteComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));
    REQUIRE(f->deployments().BeginDelete(first, false));  // cancels its poll: w1's lease is gone
    jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kDeleteComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(0.0, 0.0));
    CHECK(user().reserved == 0);
    CHECK(user().in_use == 0);
}

void FairShareHistory(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", Admit(2, 3)));
    CHECK(f->workflow().FairShareUsage(kAlice.issuer, hours(24 * 7)).value().empty());  // held, not ended
    auto jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kCreateComplete)));
    f->Elapse(milliseconds(300));
    REQUIRE(f->deployments().BeginDelete(id, false));
    jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kDeleteComplete)));

    // 2 GPUs for at least 0.3 s (a database's own clock may add a little): GPU-hours of group g.
    const auto usage = f->workflow().FairShareUsage(kAlice.issuer, hours(24 * 7)).value();
    REQUIRE(usage.count("g") == 1);
    CHECK(usage.at("g").gpus >= 2 * 0.3 / 3600 * 0.99);
    CHECK(usage.at("g").gpus <= 2 * 60.0 / 3600);
    CHECK(usage.at("g").cpus == 0);
    // Ended today: no decay yet, whatever the half-life.
    CHECK(
        f->workflow().FairShareUsage(kAlice.issuer, milliseconds(0)).value().at("g").gpus == Approx(usage.at("g").gpus)
    );
    CHECK(f->workflow().FairShareUsage(kCarol.issuer, hours(24)).value().empty());
}

void AdmissionRace(const Factory& make) {
    auto f = make();
    constexpr int kRacers = 8;
    std::vector<std::string> ids;
    ids.reserve(kRacers);
    for (int i = 0; i < kRacers; ++i) {
        ids.push_back(Add(*f, {.owner = kAlice, .group = "g"}));
    }
    auto jobs = f->workflow().Claim("w1", kRacers, minutes(1)).value();
    REQUIRE(jobs.size() == static_cast<std::size_t>(kRacers));
    std::atomic<bool> go{false};
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    threads.reserve(jobs.size());
    for (const auto& job : jobs) {
        threads.emplace_back([&, job] {
            while (!go.load()) {
                std::this_thread::yield();
            }
            if (!f->workflow().Commit(job, "w1", Admit(1, 3))) {
                ++failed;
            }
        });
    }
    go = true;
    for (auto& t : threads) {
        t.join();
    }
    CHECK(failed.load() == 0);
    CHECK(GroupGpus(*f) == std::make_pair(3.0, 0.0));
    int admitted = 0;
    for (const auto& id : ids) {
        admitted += MustGet(*f, id).status_reason == "placed" ? 1 : 0;
    }
    CHECK(admitted == 3);
}

namespace {

// A place step's commit reserving `gpus` GPUs of `gpu_class` (limit `limit`) and as many of
// every GPU (limit 100) for Alice in group g.
workflow::Transition AdmitClass(const std::string& gpu_class, double gpus, double limit) {
    workflow::Transition t = Admit(gpus, 100);
    workflow::CounterKey key{
        workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus, gpu_class};
    t.admit->claims.push_back({key, gpus, limit});
    std::sort(t.admit->claims.begin(), t.admit->claims.end(), [](const auto& a, const auto& b) {
        return a.key < b.key;
    });
    return t;
}

// What group g holds (reserved + in use) of one GPU class ("" = every GPU).
double ClassHeld(StoreFixture& f, const std::string& gpu_class) {
    const auto counters = f.workflow().QuotaCounters(kAlice.issuer, {"g"});
    REQUIRE(counters);
    for (const auto& c : *counters) {
        if (c.key.scope == workflow::QuotaScope::kGroup && c.key.gpu_class == gpu_class) {
            return c.reserved + c.in_use;
        }
    }
    return 0;
}

}  // namespace

void AdmissionGpuClasses(const Factory& make) {
    auto f = make();
    const std::string v100 = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string more = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string t4 = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, v100), "w1", AdmitClass("V100", 2, 2)));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, more), "w1", AdmitClass("V100", 1, 2)));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, t4), "w1", AdmitClass("T4", 2, 2)));
    // The V100 class is full; T4 is another counter; every GPU counts both classes.
    CHECK(MustGet(*f, v100).status_reason == "placed");
    CHECK(MustGet(*f, more).status_reason == "queued: waiting in group g for 1 × GPU");
    CHECK(MustGet(*f, t4).status_reason == "placed");
    CHECK(ClassHeld(*f, "V100") == 2);
    CHECK(ClassHeld(*f, "T4") == 2);
    CHECK(ClassHeld(*f, "") == 4);

    // Deleting the V100 holder gives its class back (and only that).
    REQUIRE(f->deployments().BeginDelete(v100, false));
    auto jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    for (const auto& job : jobs) {
        if (job.deployment_id == v100) {
            REQUIRE(f->workflow().Commit(job, "w2", WithStatus(DStatus::kDeleteComplete)));
        }
    }
    CHECK(ClassHeld(*f, "V100") == 0);
    CHECK(ClassHeld(*f, "T4") == 2);
    CHECK(ClassHeld(*f, "") == 2);
}

namespace {

// A claim of group g on one service's SLA counter of GPUs.
workflow::QuotaClaim OnServiceClaim(const std::string& service, double gpus, double limit) {
    workflow::CounterKey key{
        workflow::QuotaScope::kGroupOnService, kAlice.issuer, "g", "", service, workflow::QuotaResource::kGpus};
    return {key, gpus, limit};
}

// A place step's commit (Admit) that also reserves `gpus` on `service`'s SLA (limit 1 GPU).
workflow::Transition AdmitOn(const std::string& service, double gpus) {
    workflow::Transition t = Admit(gpus, 100);
    t.admit->claims.push_back(OnServiceClaim(service, gpus, 1));
    std::sort(t.admit->claims.begin(), t.admit->claims.end(), [](const auto& a, const auto& b) {
        return a.key < b.key;
    });
    return t;
}

// The move to another candidate: only the claims on services are replaced. The group claim in
// it must be ignored (its limit 0 would refuse it).
workflow::Transition MoveTo(const std::string& service, double gpus) {
    workflow::Transition t;
    t.status_reason = "moved";
    t.next = workflow::NextJob{workflow::JobKind::kDeploy, Json::object(), milliseconds(0), true};
    workflow::Admission admit;
    admit.services_only = true;
    if (!service.empty()) {
        admit.claims.push_back(OnServiceClaim(service, gpus, 1));
        workflow::CounterKey group{
            workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus};
        admit.claims.insert(admit.claims.begin(), {group, gpus, 0});
    }
    admit.queued_reason = "queued: waiting for " + service;
    admit.retry_delay = milliseconds(0);
    t.admit = admit;
    return t;
}

// What group g holds (reserved + in use) of GPUs on one service.
double ServiceHeld(StoreFixture& f, const std::string& service) {
    const auto counters = f.workflow().QuotaCounters(kAlice.issuer, {"g"});
    REQUIRE(counters);
    for (const auto& c : *counters) {
        if (c.key.scope == workflow::QuotaScope::kGroupOnService && c.key.service_id == service) {
            return c.reserved + c.in_use;
        }
    }
    return 0;
}

}  // namespace

void AdmissionMove(const Factory& make) {
    auto f = make();
    const std::string mover = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string holder = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, mover), "w1", AdmitOn("A", 1)));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, holder), "w1", AdmitOn("B", 1)));
    CHECK(ServiceHeld(*f, "A") == 1);
    CHECK(ServiceHeld(*f, "B") == 1);
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));

    // B's SLA is full: nothing of the move is written, the mover still holds A.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, mover), "w1", MoveTo("B", 1)));
    CHECK(MustGet(*f, mover).status_reason == "queued: waiting for B");
    CHECK(ServiceHeld(*f, "A") == 1);
    CHECK(ServiceHeld(*f, "B") == 1);

    // The failed attempt's commit gives A back (an empty move); the group claim stays.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, mover), "w1", MoveTo("", 0)));
    CHECK(MustGet(*f, mover).status_reason == "moved");
    CHECK(ServiceHeld(*f, "A") == 0);
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));

    // Once the holder is gone, the move reserves B; the group counter is not claimed twice, and
    // a move adds nothing to the fair-share history.
    REQUIRE(f->deployments().BeginDelete(holder, false));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, holder, "w2"), "w2", WithStatus(DStatus::kDeleteComplete)));
    const auto history = f->workflow().FairShareUsage(kAlice.issuer, hours(24)).value();
    REQUIRE(f->workflow().Commit(ClaimFor(*f, mover), "w1", MoveTo("B", 1)));
    CHECK(MustGet(*f, mover).status_reason == "moved");
    CHECK(ServiceHeld(*f, "A") == 0);
    CHECK(ServiceHeld(*f, "B") == 1);
    CHECK(GroupGpus(*f) == std::make_pair(1.0, 0.0));
    CHECK(f->workflow().FairShareUsage(kAlice.issuer, hours(24)).value().at("g").gpus == Approx(history.at("g").gpus));

    // Success makes it usage, and failure gives every claim back.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, mover), "w1", WithStatus(DStatus::kCreateComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(0.0, 1.0));
    CHECK(ServiceHeld(*f, "B") == 1);
    REQUIRE(f->deployments().BeginDelete(mover, false));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, mover, "w2"), "w2", WithStatus(DStatus::kDeleteComplete)));
    CHECK(ServiceHeld(*f, "B") == 0);
    CHECK(GroupGpus(*f) == std::make_pair(0.0, 0.0));
}

void AdmissionQueue(const Factory& make) {
    auto f = make();
    const std::string first = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string second = Add(*f, {.owner = kAlice, .offset = seconds(1), .group = "h"});
    const std::string carols = Add(*f, {.owner = kCarol, .group = "g"});
    const std::string placed = Add(*f, {.owner = kAlice, .offset = seconds(2), .group = "g"});
    const auto record = [](const std::string& group, double gpus) {
        workflow::WaitingRequest w;
        w.group = group;
        w.queued_at = std::chrono::system_clock::time_point(milliseconds(1'700'000'000'000));
        w.demand.gpus = gpus;
        return workflow::WaitingToJson(w);
    };
    // A place step that waits: its next deploy job carries the record.
    const auto wait = [&](const std::string& group) {
        workflow::Transition t;
        t.status_reason = "queued: position 1 in group " + group + ", waiting for 1 × GPU";
        t.next = workflow::NextJob{
            workflow::JobKind::kDeploy, Json{{workflow::kWaitingMember, record(group, 1)}}, minutes(10), true};
        return t;
    };
    REQUIRE(f->workflow().Commit(ClaimFor(*f, first), "w1", wait("g")));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, carols), "w1", wait("g")));
    // A commit whose reservation does not fit: the queued job gets the admission's record.
    auto over = Admit(5, 3);
    over.admit->waiting = record("h", 5);
    REQUIRE(f->workflow().Commit(ClaimFor(*f, second), "w1", over));
    // Admitted: not waiting.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, placed), "w1", Admit(1, 3)));

    const auto listed = f->workflow().WaitingRequests(kAlice.issuer, 100);
    REQUIRE(listed);
    REQUIRE(listed->size() == 2);  // oldest first, Carol's not among them
    CHECK((*listed)[0].deployment_id == first);
    CHECK((*listed)[0].group == "g");
    CHECK((*listed)[0].demand.gpus == 1);
    CHECK((*listed)[1].deployment_id == second);
    CHECK((*listed)[1].group == "h");
    CHECK((*listed)[1].demand.gpus == 5);
    CHECK((*listed)[1].queued_at.time_since_epoch() == milliseconds(1'700'000'000'000));
    CHECK(f->workflow().WaitingRequests(kAlice.issuer, 1).value().size() == 1);
    const auto others = f->workflow().WaitingRequests(kCarol.issuer, 100).value();
    REQUIRE(others.size() == 1);
    CHECK(others[0].deployment_id == carols);

    // A cancelled request leaves the queue with its job.
    REQUIRE(f->deployments().BeginDelete(first, false));
    const auto after = f->workflow().WaitingRequests(kAlice.issuer, 100).value();
    REQUIRE(after.size() == 1);
    CHECK(after[0].deployment_id == second);
}

void AdmissionQueueFollowsItsJob(const Factory& make) {
    auto f = make();
    const std::string waiting = Add(*f, {.owner = kAlice, .group = "g"});
    const auto record = [](const std::string& group, double gpus) {
        workflow::WaitingRequest w;
        w.group = group;
        w.demand.gpus = gpus;
        return workflow::WaitingToJson(w);
    };
    // A waiting step due at once, so that the next claim finds it.
    const auto wait = [&](const std::string& group, double gpus) {
        workflow::Transition t;
        t.status_reason = "queued: position 1 in group " + group;
        t.next = workflow::NextJob{
            workflow::JobKind::kDeploy, Json{{workflow::kWaitingMember, record(group, gpus)}}, milliseconds(0), true};
        return t;
    };
    const auto listed = [&] {
        auto l = f->workflow().WaitingRequests(kAlice.issuer, 100);
        REQUIRE(l);
        return *l;
    };
    REQUIRE(f->workflow().Commit(ClaimFor(*f, waiting), "w1", wait("g", 1)));
    REQUIRE(listed().size() == 1);
    // A step that fails and is retried keeps its place.
    REQUIRE(f->workflow().Retry(ClaimFor(*f, waiting), "w1", milliseconds(0), "catalogue down"));
    REQUIRE(listed().size() == 1);
    // Waiting again: one entry, with the new record.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, waiting), "w1", wait("h", 2)));
    auto now = listed();
    REQUIRE(now.size() == 1);
    CHECK(now[0].group == "h");
    CHECK(now[0].demand.gpus == 2);
    // Its reservation does not fit at commit: still one entry, the admission's record.
    auto over = Admit(5, 3, milliseconds(0));
    over.admit->waiting = record("g", 5);
    REQUIRE(f->workflow().Commit(ClaimFor(*f, waiting), "w1", over));
    now = listed();
    REQUIRE(now.size() == 1);
    CHECK(now[0].group == "g");
    CHECK(now[0].demand.gpus == 5);
    // Admitted: gone.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, waiting), "w1", Admit(1, 3)));
    CHECK(listed().empty());

    // A waiting request that fails (its maximum wait) leaves the queue.
    const std::string failing = Add(*f, {.owner = kAlice, .offset = seconds(1), .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, failing), "w1", wait("g", 1)));
    REQUIRE(listed().size() == 1);
    REQUIRE(f->workflow().Commit(ClaimFor(*f, failing), "w1", WithStatus(DStatus::kCreateFailed)));
    CHECK(listed().empty());
}

}  // namespace orch::test::contract
