// SiteWatcher over the in-memory stores and a fake streaming site: a notification about a
// deployment in progress makes its waiting poll due at once; one about anything else, or a
// stream that the site refuses, changes nothing (and the watcher backs off instead of spinning).
#include "test_support/in_memory_stores.hpp"

#include <common/clock.hpp>
#include <common/http_stream.hpp>
#include <common/uuid.hpp>
#include <orchestrator/workflow/site_watcher.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <thread>

namespace {

using namespace std::chrono_literals;
using orch::Json;

// A site that answers each stream with `status` and `body`, then ends it.
class FakeStreamingSite final : public orch::http::Client, public orch::http::StreamingClient {
   public:
    FakeStreamingSite(int status, std::string body) : status_(status), body_(std::move(body)) {}
    orch::Result<orch::http::ClientResponse> Send(const orch::http::ClientRequest&) override {
        return orch::Error::Unavailable("not used");
    }
    orch::Status StreamBody(const orch::http::ClientRequest& request, const orch::http::StreamSink& sink) override {
        {
            const std::lock_guard lock(mutex_);
            urls_.push_back(request.url);
        }
        ++streams_;
        if (sink.on_status(status_, {}) && !body_.empty()) {
            // Split anywhere: the parser must not care where the transport cut.
            for (std::size_t i = 0; i < body_.size(); i += 7) {
                if (!sink.on_bytes(std::string_view(body_).substr(i, 7))) {
                    break;
                }
            }
        }
        std::this_thread::sleep_for(20ms);
        return orch::Ok();
    }
    int streams() const { return streams_.load(); }
    std::vector<std::string> urls() {
        const std::lock_guard lock(mutex_);
        return urls_;
    }

   private:
    int status_;
    std::string body_;
    std::atomic<int> streams_{0};
    std::mutex mutex_;
    std::vector<std::string> urls_;
};

class Factory final : public orch::connectors::SiteClientFactory {
   public:
    explicit Factory(FakeStreamingSite& site) : site_(&site, [](orch::http::Client*) {}) {}
    orch::connectors::ConnectorResult<std::shared_ptr<orch::http::Client>>
    ClientFor(const orch::connectors::SiteTarget&) override {
        return site_;
    }

   private:
    std::shared_ptr<orch::http::Client> site_;
};

// A deployment whose poll job waits an hour.
std::string WaitingPoll(orch::test::InMemoryStores& stores) {
    orch::store::NewDeployment n;
    n.deployment.id = orch::SequentialUuid();
    n.deployment.status = orch::domain::Status::kCreateInProgress;
    n.deployment.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    REQUIRE(stores.deployments.Create(n));
    auto jobs = stores.workflow.Claim("w1", 10, 1min);
    REQUIRE(jobs);
    for (const auto& job : *jobs) {
        orch::workflow::Transition t;
        if (job.deployment_id == n.deployment.id) {
            t.next = orch::workflow::NextJob{orch::workflow::JobKind::kPoll, Json::object(), 1h, true};
            REQUIRE(stores.workflow.Commit(job, "w1", t));
        } else {
            REQUIRE(stores.workflow.Retry(job, "w1", 1h, "not this one"));
        }
    }
    return n.deployment.id;
}

orch::connectors::Handle MarathonHandle(const std::string& deployment_id) {
    orch::connectors::Handle h;
    h.deployment_id = deployment_id;
    h.physical_id = "/" + deployment_id;
    h.target.site_id = "SITE-A";
    h.target.kind = orch::connectors::TargetKind::kMarathon;
    h.target.endpoint = "http://127.0.0.1:1/";
    return h;
}

std::string StatusUpdate(const std::string& app_id) {
    return "event: status_update_event\ndata: " +
           Json{{"eventType", "status_update_event"}, {"appId", app_id}, {"taskStatus", "TASK_RUNNING"}}.dump() +
           "\n\n";
}

// What the watcher reports to its observer (ops turns it into metrics), counted.
class CountingObserver final : public orch::workflow::SiteWatchObserver {
   public:
    void StreamOpened(orch::connectors::TargetKind) override { ++opened; }
    void StreamClosed(orch::connectors::TargetKind) override { ++closed; }
    void StreamEnded(orch::connectors::TargetKind, orch::workflow::StreamEnd end) override {
        const std::lock_guard lock(mutex);
        ends.push_back(end);
    }
    void Notified(orch::connectors::TargetKind kind, std::size_t count) override {
        ++notifications;
        due += static_cast<int>(count);
        marathon = marathon && kind == orch::connectors::TargetKind::kMarathon;
    }
    void PollNowFailed(orch::connectors::TargetKind) override { ++errors; }
    void Skipped(orch::connectors::TargetKind, std::size_t count) override { skipped += static_cast<int>(count); }
    std::vector<orch::workflow::StreamEnd> Ends() {
        const std::lock_guard lock(mutex);
        return ends;
    }
    std::atomic<int> opened{0}, closed{0}, notifications{0}, due{0}, errors{0}, skipped{0};
    std::atomic<bool> marathon{true};

   private:
    std::mutex mutex;
    std::vector<orch::workflow::StreamEnd> ends;
};

template <typename Predicate>
bool Eventually(Predicate done) {
    for (int i = 0; i < 300 && !done(); ++i) {
        std::this_thread::sleep_for(10ms);
    }
    return done();
}

}  // namespace

TEST_CASE("a site's event about a deployment in progress makes its poll due now", "[workflow][site_watch]") {
    orch::ManualClock clock;
    orch::test::InMemoryStores stores(clock);
    const std::string mine = WaitingPoll(stores);
    const std::string other = WaitingPoll(stores);
    FakeStreamingSite site(200, ": hello\n\n" + StatusUpdate("/" + mine + "/web") + StatusUpdate("/stranger/app"));
    Factory clients(site);
    std::atomic<int> wakes{0};
    orch::workflow::SiteWatcher watcher(stores.workflow, clients, clock, {}, [&] { ++wakes; });
    watcher.Watch(MarathonHandle(mine));
    watcher.Watch(MarathonHandle(other));  // same site: one subscriber, two interests
    REQUIRE(Eventually([&] { return watcher.expedited() >= 1; }));
    watcher.Stop();

    const auto due = stores.workflow.Claim("w1", 10, 1min);
    REQUIRE(due);
    REQUIRE(due->size() == 1);
    CHECK(due->at(0).deployment_id == mine);
    CHECK(due->at(0).kind == orch::workflow::JobKind::kPoll);
    CHECK(wakes.load() >= 1);
    for (const auto& url : site.urls()) {
        CHECK(url.rfind("http://127.0.0.1:1/v2/events?", 0) == 0);  // one slash, Marathon's bus
    }
}

TEST_CASE("a site refusing its stream is retried with backoff, and moves nothing", "[workflow][site_watch]") {
    orch::ManualClock clock;
    orch::test::InMemoryStores stores(clock);
    const std::string mine = WaitingPoll(stores);
    FakeStreamingSite site(403, StatusUpdate("/" + mine + "/web"));
    Factory clients(site);
    orch::workflow::SiteWatcher watcher(stores.workflow, clients, clock, {}, nullptr);
    watcher.Watch(MarathonHandle(mine));
    std::this_thread::sleep_for(1200ms);  // backoff 0.5 s, then 1 s: at most two more tries
    watcher.Stop();
    CHECK(site.streams() >= 1);
    CHECK(site.streams() <= 3);
    CHECK(watcher.expedited() == 0);
    CHECK(stores.workflow.Claim("w1", 10, 1min).value().empty());
}

TEST_CASE("kinds without notifications and a disabled watcher open no stream", "[workflow][site_watch]") {
    orch::ManualClock clock;
    orch::test::InMemoryStores stores(clock);
    const std::string mine = WaitingPoll(stores);
    FakeStreamingSite site(200, StatusUpdate("/" + mine + "/web"));
    Factory clients(site);
    {
        orch::workflow::SiteWatcher watcher(stores.workflow, clients, clock, {}, nullptr);
        auto slurm = MarathonHandle(mine);
        slurm.target.kind = orch::connectors::TargetKind::kSlurm;
        watcher.Watch(slurm);
        orch::workflow::SiteWatchOptions off;
        off.enabled = false;
        orch::workflow::SiteWatcher disabled(stores.workflow, clients, clock, off, nullptr);
        disabled.Watch(MarathonHandle(mine));
        std::this_thread::sleep_for(100ms);
    }
    CHECK(site.streams() == 0);
}

TEST_CASE("a Kubernetes watch resumes from the last resourceVersion it saw", "[workflow][site_watch]") {
    orch::ManualClock clock;
    orch::test::InMemoryStores stores(clock);
    const std::string mine = WaitingPoll(stores);
    const std::string line =
        Json{
            {"type", "MODIFIED"},
            {"object", {{"metadata", {{"namespace", "orch-" + mine}, {"resourceVersion", "77"}}}}}}
            .dump() +
        "\n";
    FakeStreamingSite site(200, line);
    Factory clients(site);
    orch::workflow::SiteWatcher watcher(stores.workflow, clients, clock, {}, nullptr);
    auto handle = MarathonHandle(mine);
    handle.target.kind = orch::connectors::TargetKind::kKubernetes;
    handle.physical_id = "orch-" + mine;
    watcher.Watch(handle);
    REQUIRE(Eventually([&] { return site.streams() >= 6; }));  // three collections, each twice
    watcher.Stop();
    CHECK(watcher.expedited() == 1);  // the poll was due after the first; later ones find it due
    int resumed = 0;
    for (const auto& url : site.urls()) {
        resumed += url.find("watch=true&resourceVersion=77") != std::string::npos ? 1 : 0;
    }
    CHECK(resumed >= 3);
}

TEST_CASE("the watcher reports streams, notifications, polls made due and reconnects", "[workflow][site_watch]") {
    // Before: nothing was reported; the watchers exported no metrics.
    orch::ManualClock clock;
    orch::test::InMemoryStores stores(clock);
    const std::string mine = WaitingPoll(stores);
    const std::string oversized = "data: " + std::string(2000, 'x') + "\n\n";
    FakeStreamingSite site(
        200, ": hello\n\n" + StatusUpdate("/" + mine + "/web") + StatusUpdate("/stranger/app") + oversized
    );
    Factory clients(site);
    CountingObserver observer;
    orch::workflow::SiteWatchOptions options;
    options.observer = &observer;
    options.max_line = 1024;
    orch::workflow::SiteWatcher watcher(stores.workflow, clients, clock, options, nullptr);
    watcher.Watch(MarathonHandle(mine));
    REQUIRE(Eventually([&] { return observer.Ends().size() >= 2; }));  // opened again at once
    watcher.Stop();
    CHECK(observer.opened >= 2);
    CHECK(observer.opened == observer.closed);  // every stream that opened is closed
    CHECK(observer.due == 1);                   // later streams find the poll already due
    CHECK(observer.notifications >= 4);         // two per stream: mine and the stranger's
    CHECK(observer.marathon);
    CHECK(observer.skipped >= 2);  // the oversized event, once per stream
    CHECK(observer.errors == 0);
    for (const auto end : observer.Ends()) {
        CHECK(end == orch::workflow::StreamEnd::kClosed);
    }

    SECTION("a refused stream is reported as such, never as open") {
        FakeStreamingSite refusing(403, "");
        Factory refusing_clients(refusing);
        CountingObserver refused;
        orch::workflow::SiteWatchOptions with_observer;
        with_observer.observer = &refused;
        orch::workflow::SiteWatcher refused_watcher(stores.workflow, refusing_clients, clock, with_observer, nullptr);
        refused_watcher.Watch(MarathonHandle(mine));
        REQUIRE(Eventually([&] { return !refused.Ends().empty(); }));
        refused_watcher.Stop();
        CHECK(refused.opened == 0);
        CHECK(refused.Ends().front() == orch::workflow::StreamEnd::kRefused);
    }
}
