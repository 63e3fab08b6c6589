// The schedule routes' authorization rules with auth on (contract §2 rows 17-21, §3.17, §5.3),
// which the e2e tests (auth disabled, the local user is admin) cannot reach: the real handlers and
// router with an authenticator returning a chosen principal and in-memory stores.
#include "test_support/fakes.hpp"
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/api/http_file_notification_source.hpp>
#include <orchestrator/api/schedule_routes.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>

namespace {

using orch::Error;
using orch::Json;
using orch::Result;
using orch::Status;

class MemorySchedules final : public orch::store::ScheduleStore {
   public:
    std::vector<orch::domain::Schedule> rows;
    std::vector<orch::store::ScheduleQuery> queries;

    Status Create(const orch::domain::Schedule& s) override {
        rows.push_back(s);
        return orch::Ok();
    }
    Result<std::optional<orch::domain::Schedule>> Get(const std::string& id) override {
        for (const auto& s : rows) {
            if (s.id == id) {
                return std::optional<orch::domain::Schedule>(s);
            }
        }
        return std::optional<orch::domain::Schedule>();
    }
    Result<orch::store::Page<orch::domain::Schedule>> List(const orch::store::ScheduleQuery& q) override {
        queries.push_back(q);
        return orch::store::Page<orch::domain::Schedule>{};
    }
    Result<std::vector<orch::store::RunningSchedule>> ListRunning(
        const orch::auth::OwnerFilter&, const std::string&, int
    ) override {
        return std::vector<orch::store::RunningSchedule>{};
    }
    int event_queries = 0;
    Result<orch::store::Page<orch::domain::ScheduleEvent>>
    ListEvents(const std::string&, int, int, const std::vector<orch::store::SortKey>&) override {
        ++event_queries;
        return orch::store::Page<orch::domain::ScheduleEvent>{};
    }
    Result<bool> CreateEvent(const orch::domain::ScheduleEvent&, const orch::store::NewDeployment&) override {
        return false;
    }
};

class CountingSink final : public orch::schedule::FileNotificationSink {
   public:
    int calls = 0;
    std::vector<orch::auth::OwnerFilter> scopes;
    Result<orch::schedule::NotificationOutcome> OnFileAvailable(
        const orch::schedule::FileNotification&, const orch::auth::OwnerFilter& scope
    ) override {
        ++calls;
        scopes.push_back(scope);
        return orch::schedule::NotificationOutcome{};
    }
};

// Holds the first notification until released (at most 5 s, so a test of code that lets a
// second one in fails instead of hanging).
class BlockingSink final : public orch::schedule::FileNotificationSink {
   public:
    std::atomic<int> calls{0};
    std::promise<void> entered;
    std::shared_future<void> release;
    Result<orch::schedule::NotificationOutcome>
    OnFileAvailable(const orch::schedule::FileNotification&, const orch::auth::OwnerFilter&) override {
        if (calls.fetch_add(1) == 0) {
            entered.set_value();
        }
        release.wait_for(std::chrono::seconds(5));
        return orch::schedule::NotificationOutcome{};
    }
};

orch::auth::Principal User(const std::string& subject, bool admin, std::set<std::string, std::less<>> scopes) {
    orch::auth::Principal p;
    p.issuer = "https://iam.example/";
    p.subject = subject;
    p.admin = admin;
    p.scopes = std::move(scopes);
    return p;
}

struct Harness {
    orch::test::FakeAuthenticator authenticator;
    orch::test::FakeTemplateService templates{orch::tosca::DeploymentSpec{}};
    orch::ManualClock clock;
    orch::test::InMemoryStores stores{clock};  // the schedule routes never touch deployments
    MemorySchedules schedules;
    orch::auth::AuthConfig auth_config;
    orch::api::ApiContext ctx{
        stores.deployments, templates, authenticator, nullptr, auth_config, clock, nullptr, "http://o", {}};
    orch::api::ScheduleApi schedule_api{ctx, schedules};
    orch::server::Router router;
    orch::api::HttpFileNotificationSource source{router, ctx};
    CountingSink sink;

    Harness() {
        orch::api::RegisterScheduleRoutes(router, schedule_api);
        source.Start(sink);
        authenticator.principal = User("alice", false, {"openid", "profile", "offline_access"});
    }

    orch::server::Response Call(
        const std::string& method, const std::string& path, const std::string& query = "", const std::string& body = ""
    ) {
        orch::server::Request request;
        request.method = method;
        request.path = path;
        request.target = path + (query.empty() ? "" : "?" + query);
        request.query = orch::server::ParseQuery(query);
        request.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer x"}};
        request.body = body;
        auto match = router.Find(method, path);
        REQUIRE(match.route != nullptr);
        request.path_params = match.params;
        return match.route->handler(request);
    }

    orch::domain::Schedule Add(const std::string& issuer, const std::string& subject) {
        orch::domain::Schedule s;
        s.id = "11ed8ab3-6a40-968a-82b7-62f0862dbe4" + std::to_string(schedules.rows.size());
        s.owner = orch::domain::Owner{issuer, subject};
        s.template_text = "t";
        schedules.rows.push_back(s);
        return s;
    }
};

std::string Message(const orch::server::Response& r) {
    return Json::parse(r.body)["message"];
}

}  // namespace

TEST_CASE("only admins may feed file notifications", "[schedules][auth]") {
    Harness h;
    const std::string file = Json{{"scope", "user.alice"}, {"name", "f.root"}}.dump();
    const auto denied = h.Call("POST", "/schedules/notifications", "", file);
    CHECK(denied.status == 403);
    CHECK(Message(denied) == "Only admin can notify new files");
    CHECK(h.sink.calls == 0);
    h.authenticator.principal.admin = true;
    CHECK(h.Call("POST", "/schedules/notifications", "", file).status == 200);
    CHECK(h.sink.calls == 1);
    REQUIRE(h.sink.scopes.size() == 1);  // an admin notifies their own issuer's schedules only
    CHECK(h.sink.scopes[0].issuer() == std::optional<std::string>("https://iam.example/"));
    CHECK(h.sink.scopes[0].include_unowned());
    h.source.Stop();
    CHECK(h.Call("POST", "/schedules/notifications", "", file).status == 503);
}

TEST_CASE("POST /schedules needs a write scope and stores the caller as owner", "[schedules][auth]") {
    Harness h;
    const std::string body =
        Json{{"template", "t"}, {"fileExpression", ".*"}, {"replicationExpression", "X"}, {"numberOfReplicas", 1}}.dump(
        );
    h.authenticator.principal = User("alice", false, {"openid", "profile"});
    const auto denied = h.Call("POST", "/schedules", "", body);
    CHECK(denied.status == 403);
    CHECK(Message(denied).rfind("Insufficient scope for this resource", 0) == 0);
    CHECK(h.schedules.rows.empty());
    h.authenticator.principal = User("alice", false, {"openid", "profile", "fts:submit-transfer"});
    const auto created = h.Call("POST", "/schedules", "", body);
    CHECK(created.status == 201);
    REQUIRE(h.schedules.rows.size() == 1);
    REQUIRE(h.schedules.rows[0].owner);
    CHECK(h.schedules.rows[0].owner->issuer == "https://iam.example/");
    CHECK(h.schedules.rows[0].owner->subject == "alice");
}

TEST_CASE("schedule lists follow the createdBy rules for users and admins", "[schedules][auth]") {
    Harness h;
    CHECK(h.Call("GET", "/schedules").status == 200);
    CHECK(h.Call("GET", "/schedules", "createdBy=me").status == 200);
    REQUIRE(h.schedules.queries.size() == 2);
    for (const auto& q : h.schedules.queries) {  // a user without createdBy, or with me: own only
        CHECK(q.owner.issuer() == std::optional<std::string>("https://iam.example/"));
        CHECK(q.owner.subject() == std::optional<std::string>("alice"));
    }
    const auto foreign = h.Call("GET", "/schedules", "createdBy=bob@https://iam.example/");
    CHECK(foreign.status == 400);
    CHECK(Message(foreign) == "Value bob@https://iam.example/ for param createdBy is illegal");
    CHECK(h.Call("GET", "/schedules", "createdBy=alice@https://iam.example/").status == 400);  // schedules: admins only

    h.authenticator.principal.admin = true;
    h.schedules.queries.clear();
    CHECK(h.Call("GET", "/schedules").status == 200);
    CHECK(h.Call("GET", "/schedules", "createdBy=bob@https://iam.example/").status == 200);
    REQUIRE(h.schedules.queries.size() == 2);
    CHECK(h.schedules.queries[0].owner.issuer() == std::optional<std::string>("https://iam.example/"));
    CHECK_FALSE(h.schedules.queries[0].owner.subject());  // an admin: the whole issuer
    CHECK(h.schedules.queries[1].owner.subject() == std::optional<std::string>("bob"));
}

TEST_CASE("another issuer's schedule is 404 and has no events for the caller", "[schedules][auth]") {
    Harness h;
    const auto own_issuer = h.Add("https://iam.example/", "bob");
    const auto other = h.Add("https://other.example/", "carol");
    CHECK(h.Call("GET", "/schedules/" + own_issuer.id).status == 200);  // same issuer: visible to any user
    CHECK(h.Call("GET", "/schedules/" + own_issuer.id + "/template").status == 200);
    const auto hidden = h.Call("GET", "/schedules/" + other.id);
    CHECK(hidden.status == 404);
    CHECK(Message(hidden) == "The deployment <" + other.id + "> doesn't exist");
    CHECK(h.Call("GET", "/schedules/" + other.id + "/template").status == 404);
    CHECK(h.Call("GET", "/schedules/" + own_issuer.id + "/events").status == 200);  // no ownership check
    CHECK(h.schedules.event_queries == 1);
    // Another issuer's: the empty page of an unknown schedule, its events never read.
    const auto foreign = h.Call("GET", "/schedules/" + other.id + "/events");
    CHECK(foreign.status == 200);
    CHECK(Json::parse(foreign.body)["page"]["totalElements"] == 0);
    CHECK(h.schedules.event_queries == 1);
}

TEST_CASE("file notifications run one at a time and another one meanwhile is 503", "[schedules][security]") {
    // However many schedules users create, a burst of notifications holds at most one worker.
    Harness h;
    h.authenticator.principal.admin = true;
    BlockingSink blocking;
    std::promise<void> release;
    blocking.release = release.get_future().share();
    h.source.Start(blocking);
    const std::string file = Json{{"scope", "user.alice"}, {"name", "f.root"}}.dump();
    orch::server::Request request;
    request.method = "POST";
    request.path = request.target = "/schedules/notifications";
    request.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer x"}};
    request.body = file;
    const auto match = h.router.Find("POST", "/schedules/notifications");
    REQUIRE(match.route != nullptr);
    auto first = std::async(std::launch::async, [&] { return match.route->handler(request); });
    auto entered = blocking.entered.get_future();
    if (entered.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        const auto answered = first.get();
        FAIL("the first notification never reached the sink: " << answered.status << " " << answered.body);
    }
    const auto second = h.Call("POST", "/schedules/notifications", "", file);
    CHECK(second.status == 503);
    CHECK(Message(second) == "Another file notification is being processed; retry later");
    release.set_value();
    CHECK(first.get().status == 200);
    CHECK(blocking.calls == 1);
    CHECK(h.Call("POST", "/schedules/notifications", "", file).status == 200);  // free again
}

namespace {

class MaxLease final : public orch::workflow::LeasePolicySource {
   public:
    orch::workflow::LeasePolicy policy;
    std::vector<std::string> groups;
    Result<orch::workflow::LeasePolicy> ForGroup(const std::string& group, const std::string&, const std::string&)
        override {
        groups.push_back(group);
        return policy;
    }
};

}  // namespace

TEST_CASE("a schedule carries its deployments' lease, checked against the maximum and shown", "[schedules][leases]") {
    Harness h;
    MaxLease terms;
    terms.policy.maximum = std::chrono::hours(24);
    h.ctx.leases = &terms;
    h.authenticator.principal = User("alice", false, {"openid", "profile", "fts:submit-transfer"});
    Json body{{"template", "t"}, {"fileExpression", ".*"}, {"replicationExpression", "X"}, {"numberOfReplicas", 1}};

    body["deploymentExpiresAfterMins"] = 24 * 60 + 1;
    const auto beyond = h.Call("POST", "/schedules", "", body.dump());
    CHECK(beyond.status == 400);
    CHECK(Message(beyond).rfind("deploymentExpiresAfterMins is beyond the maximum lease of 24h", 0) == 0);
    CHECK(terms.groups == std::vector<std::string>{""});  // the terms its deployments get: no group's
    for (const Json& bad : {Json(0), Json(-5), Json("soon"), Json(6'000'000)}) {
        body["deploymentExpiresAfterMins"] = bad;
        const auto refused = h.Call("POST", "/schedules", "", body.dump());
        CHECK(refused.status == 400);
        CHECK(Json::parse(refused.body).contains("code"));
    }
    CHECK(h.schedules.rows.empty());

    body["deploymentExpiresAfterMins"] = "90";  // numeric strings accepted, as for numberOfReplicas
    const auto created = h.Call("POST", "/schedules", "", body.dump());
    REQUIRE(created.status == 201);
    CHECK(Json::parse(created.body).value("deploymentExpiresAfterMins", 0) == 90);
    REQUIRE(h.schedules.rows.size() == 1);
    CHECK(h.schedules.rows[0].deployment_expires_after_mins == std::optional<int>(90));
    const auto shown = h.Call("GET", "/schedules/" + h.schedules.rows[0].id);
    REQUIRE(shown.status == 200);
    CHECK(Json::parse(shown.body).value("deploymentExpiresAfterMins", 0) == 90);

    body.erase("deploymentExpiresAfterMins");  // absent: the default lease, and not shown
    const auto plain = h.Call("POST", "/schedules", "", body.dump());
    REQUIRE(plain.status == 201);
    CHECK_FALSE(Json::parse(plain.body).contains("deploymentExpiresAfterMins"));
}
