// GET /deployments/{id}/events and GET /events through the router (HandlerHarness) and the
// EventStream they return, over the in-memory event log and a ManualClock: no socket, no sleep.
#include "test_support/handler_harness.hpp"

#include <orchestrator/api/event_routes.hpp>
#include <orchestrator/api/event_stream.hpp>
#include <orchestrator/server/keep_alive_stream.hpp>

#include <catch2/catch.hpp>

#include <sstream>

namespace {

using orch::Json;
using orch::domain::Event;
using orch::domain::EventType;
using std::chrono::seconds;

std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> out;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
        out.push_back(line);
    }
    return out;
}

// The in-memory log, counting the reads the streams make of it.
class CountingEventStore final : public orch::store::EventStore {
   public:
    explicit CountingEventStore(orch::store::EventStore& inner) : inner_(inner) {}
    orch::Result<std::vector<Event>> After(const orch::store::EventQuery& query) override {
        ++after_reads;
        return inner_.After(query);
    }
    orch::Result<std::int64_t> LatestId() override { return inner_.LatestId(); }
    orch::Result<std::vector<orch::store::LoggedEvent>> Range(std::int64_t after, std::int64_t up_to, int limit)
        override {
        ++range_reads;
        return inner_.Range(after, up_to, limit);
    }
    int after_reads = 0;
    int range_reads = 0;

   private:
    orch::store::EventStore& inner_;
};

constexpr orch::api::EventStreamOptions kOptions{
    .poll_interval = seconds(1), .heartbeat = seconds(15), .max_streams = 10, .max_streams_per_caller = 2};

struct Rig {
    orch::test::HandlerHarness api;
    CountingEventStore log{api.stores.events};
    orch::api::EventFeed feed;

    explicit Rig(orch::api::EventStreamOptions options = kOptions) : feed(log, options, api.clock) {
        api.ctx.events = &feed;
        orch::api::RegisterEventRoutes(api.router, api.ctx);
    }

    std::string Create() {
        Json body{{"template", "tosca_definitions_version: x"}, {"userGroup", "users"}};
        const auto res = api.Call("POST", "/deployments", body.dump());
        REQUIRE(res.status == 201);
        return Json::parse(res.body).value("uuid", "");
    }

    void Append(const std::string& id, EventType type, Json data) {
        const std::lock_guard lock(api.stores.db.mutex());
        Event e;
        e.type = type;
        e.time = api.clock.now();
        e.data = std::move(data);
        api.stores.db.AppendEvents(id, {e});
    }

    /// The next chunk of a stream (as the server would call it).
    static std::string Next(const orch::server::Response& res) {
        REQUIRE(res.stream);
        std::string out;
        REQUIRE(res.stream->Next(out));
        return out;
    }
};

}  // namespace

TEST_CASE("an event is framed as id, event and one data line, whatever its text holds", "[events][security]") {
    Event e;
    e.id = 42;
    e.deployment_id = "d-1";
    e.type = EventType::kSiteMessage;
    e.data = Json{{"message", "boom\nid: 99\nevent: completed\r\ndata: {}\r\rretry: 1\n\n"}};
    const std::string text = orch::api::FormatSseEvent(e);
    CHECK(text.find('\r') == std::string::npos);
    const auto lines = Lines(text);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "id: 42");
    CHECK(lines[1] == "event: site_message");
    REQUIRE(lines[2].rfind("data: ", 0) == 0);
    CHECK(lines[3].empty());
    const Json data = Json::parse(lines[2].substr(6));
    CHECK(data["id"] == 42);
    CHECK(data["deploymentId"] == "d-1");
    CHECK(data["type"] == "site_message");
    CHECK(data["data"] == e.data);  // the text arrives intact, only escaped
    // Invalid UTF-8 from a site does not throw at the stream.
    e.data = Json{{"message", std::string("\xff\xfe bad")}};
    CHECK_NOTHROW(orch::api::FormatSseEvent(e));
}

TEST_CASE("a deployment's stream sends its history, then only what is new, then heartbeats", "[events]") {
    Rig rig;
    const std::string id = rig.Create();
    const std::string other = rig.Create();
    rig.Append(id, EventType::kProgress, Json{{"statusReason", "Validated; placing"}});
    rig.Append(other, EventType::kProgress, Json::object());
    rig.Append(id, EventType::kAttemptStarted, Json{{"seq", 1}});
    const auto res = rig.api.Call("GET", "/deployments/" + id + "/events");
    REQUIRE(res.status == 200);
    CHECK(res.content_type == "text/event-stream");
    const std::string first = Rig::Next(res);
    CHECK(first.rfind(": stream open\n", 0) == 0);
    CHECK(first.find("id: 1\nevent: progress\n") != std::string::npos);
    CHECK(first.find("id: 2\n") == std::string::npos);  // another deployment's
    CHECK(first.find("id: 3\nevent: attempt_started\n") != std::string::npos);
    CHECK(Rig::Next(res).empty());  // nothing new, no heartbeat yet

    rig.Append(id, EventType::kCompleted, Json{{"status", "CREATE_COMPLETE"}});
    rig.api.clock.Advance(seconds(1));
    CHECK(Rig::Next(res).rfind("id: 4\nevent: completed\n", 0) == 0);
    rig.api.clock.Advance(seconds(16));
    CHECK(Rig::Next(res) == ": keep-alive\n\n");
    CHECK(Rig::Next(res).empty());
}

TEST_CASE("Last-Event-ID (header or query) resumes after exactly that event", "[events]") {
    Rig rig;
    const std::string id = rig.Create();
    for (int i = 0; i < 5; ++i) {
        rig.Append(id, EventType::kProgress, Json{{"n", i}});
    }
    auto by_header = rig.api.Call(
        "GET", "/deployments/" + id + "/events", "", {{"Content-Type", "application/json"}, {"Last-Event-ID", "3"}}
    );
    const std::string text = Rig::Next(by_header);
    CHECK(text.find("id: 3\n") == std::string::npos);
    CHECK(text.find("id: 4\n") != std::string::npos);
    CHECK(text.find("id: 5\n") != std::string::npos);
    const auto by_query = rig.api.Call("GET", "/events?lastEventId=4");
    const std::string all = Rig::Next(by_query);
    CHECK(all.find("id: 4\n") == std::string::npos);
    CHECK(all.find("id: 5\n") != std::string::npos);
    // Without one, /events starts from now (two streams are this caller's limit: one goes first).
    by_header.stream.reset();
    const auto from_now = rig.api.Call("GET", "/events");
    CHECK(Rig::Next(from_now).find("id: ") == std::string::npos);
}

TEST_CASE("a hostile Last-Event-ID is a 400 with the error body", "[events][security]") {
    Rig rig;
    const std::string id = rig.Create();
    for (const std::string bad : {"1\nid: 5", "-1", "99999999999999999999", "abc", "1 ", "0x10"}) {
        INFO(bad);
        const auto res = rig.api.Call("GET", "/events?lastEventId=" + orch::http::UrlEncode(bad));
        CHECK(res.status == 400);
        CHECK(Json::parse(res.body).value("code", 0) == 400);
        CHECK_FALSE(res.stream);
    }
}

TEST_CASE("streams are scoped like the list: another issuer sees none of the events", "[events][security]") {
    Rig rig;
    const std::string id = rig.Create();
    rig.api.principal() = orch::test::HandlerHarness::User("https://other-iam.example/", "mallory");
    const auto all = rig.api.Call("GET", "/events?lastEventId=0");
    rig.Append(id, EventType::kProgress, Json::object());
    rig.api.clock.Advance(seconds(1));
    CHECK(Rig::Next(all).find("id: ") == std::string::npos);
    CHECK(rig.api.Call("GET", "/deployments/" + id + "/events").status == 404);
}

TEST_CASE("per-caller and global stream limits answer 429, a closed stream frees its place", "[events][security]") {
    Rig rig;
    auto first = rig.api.Call("GET", "/events");
    auto second = rig.api.Call("GET", "/events");
    REQUIRE(first.status == 200);
    REQUIRE(second.status == 200);
    const auto third = rig.api.Call("GET", "/events");
    CHECK(third.status == 429);
    CHECK(Json::parse(third.body).value("code", 0) == 429);
    CHECK(rig.feed.open_streams() == 2);
    first.stream.reset();  // the server drops a finished stream
    CHECK(rig.feed.open_streams() == 1);
    const auto again = rig.api.Call("GET", "/events");
    CHECK(again.status == 200);
    CHECK(rig.feed.open_streams() == 2);
}

TEST_CASE("a dropped consumer is told the last event it was sent, to resume from", "[events]") {
    Rig rig;
    const std::string id = rig.Create();
    rig.Append(id, EventType::kProgress, Json::object());
    const auto res = rig.api.Call("GET", "/deployments/" + id + "/events");
    CHECK(Rig::Next(res).find("id: 1\n") != std::string::npos);  // sent
    rig.Append(id, EventType::kProgress, Json::object());
    rig.api.clock.Advance(seconds(1));
    CHECK(Rig::Next(res).find("id: 2\n") != std::string::npos);  // produced, then found too slow
    const auto lines = Lines(res.stream->Dropped());
    REQUIRE(lines.size() >= 2);
    CHECK(lines[0] == "event: dropped");
    CHECK(Json::parse(lines[1].substr(6)).value("lastEventId", -1) == 1);
}

TEST_CASE("idle streams stay off the worker pool, one of them reading the newest id for all", "[events]") {
    Rig rig;
    const std::string id = rig.Create();
    const auto a = rig.api.Call("GET", "/events");
    const auto b = rig.api.Call("GET", "/events");
    REQUIRE(a.stream);
    REQUIRE(b.stream);
    CHECK_FALSE(a.stream->Idle());  // the opening comment is due
    (void)Rig::Next(a);
    (void)Rig::Next(b);
    CHECK(a.stream->Idle());
    CHECK(b.stream->Idle());
    rig.Append(id, EventType::kProgress, Json{{"statusReason", "placing"}});
    CHECK(a.stream->Idle());  // the shared id is fresh: nobody reads before its half interval
    rig.api.clock.Advance(std::chrono::milliseconds(500));
    // Due for a read: exactly one stream is sent to make it.
    const bool a_reads = !a.stream->Idle();
    const bool b_reads = !b.stream->Idle();
    CHECK(a_reads != b_reads);
    const auto& reader = a_reads ? a : b;
    const auto& other = a_reads ? b : a;
    CHECK(Rig::Next(reader).find("event: progress\n") != std::string::npos);
    // The other learns of the new event from the shared id, without a read of its own.
    CHECK_FALSE(other.stream->Idle());
    CHECK(Rig::Next(other).find("event: progress\n") != std::string::npos);
    CHECK(a.stream->Idle());
    CHECK(b.stream->Idle());
    rig.api.clock.Advance(seconds(15));
    CHECK_FALSE(a.stream->Idle());  // a heartbeat is due
    CHECK(Rig::Next(a) == ": keep-alive\n\n");
}

TEST_CASE("a stream asked twice before its turn still makes the read of the newest id it claimed", "[events]") {
    Rig rig;
    const std::string id = rig.Create();
    const auto a = rig.api.Call("GET", "/events");
    REQUIRE(a.stream);
    (void)Rig::Next(a);
    rig.Append(id, EventType::kProgress, Json{{"statusReason", "placing"}});
    rig.api.clock.Advance(std::chrono::milliseconds(500));
    CHECK_FALSE(a.stream->Idle());  // due for a read: this stream claims it
    // The server's pacer asks, then the stream's own turn may ask again: the claim still stands
    // (else nobody reads the newest id until the claim lapses, and the news waits).
    CHECK_FALSE(a.stream->Idle());
    CHECK(Rig::Next(a).find("event: progress\n") != std::string::npos);
    CHECK(a.stream->Idle());
}

TEST_CASE("a keep-alive alone is written without Next, a read to make or news still go to Next", "[events]") {
    Rig rig;
    const std::string id = rig.Create();
    const auto a = rig.api.Call("GET", "/events");
    auto* const keep_alive = dynamic_cast<orch::server::KeepAliveStream*>(a.stream.get());
    REQUIRE(keep_alive != nullptr);
    std::string out;
    CHECK_FALSE(keep_alive->KeepAlive(out));  // the opening comment is Next's
    (void)Rig::Next(a);
    rig.api.clock.Advance(seconds(15));
    const auto b = rig.api.Call("GET", "/events");
    (void)Rig::Next(b);             // reads the newest id for both: it is fresh
    CHECK_FALSE(a.stream->Idle());  // a heartbeat is due
    CHECK(keep_alive->KeepAlive(out));
    CHECK(out == ": keep-alive\n\n");
    CHECK(a.stream->Idle());

    // A heartbeat due with news known: Next sends the news.
    rig.api.clock.Advance(seconds(15));
    rig.Append(id, EventType::kProgress, Json{{"statusReason", "placing"}});
    CHECK(Rig::Next(b).find("event: progress\n") != std::string::npos);
    out.clear();
    CHECK_FALSE(keep_alive->KeepAlive(out));
    CHECK(out.empty());
    CHECK(Rig::Next(a).find("event: progress\n") != std::string::npos);

    // A heartbeat due and the newest id due a read: the stream claims it, and Next makes it.
    rig.api.clock.Advance(seconds(15));
    CHECK_FALSE(keep_alive->KeepAlive(out));
    CHECK(out.empty());
    CHECK_FALSE(a.stream->Idle());  // the claim stands until Next
    CHECK(Rig::Next(a) == ": keep-alive\n\n");
    CHECK(a.stream->Idle());
}

TEST_CASE("streams with news take it from one shared read of the log, each only its own", "[events]") {
    orch::api::EventStreamOptions options = kOptions;
    options.max_streams = 200;
    options.max_streams_per_caller = 100;
    Rig rig(options);
    rig.api.principal() = orch::test::HandlerHarness::User("https://iam.example/", "alice");
    const std::string mine = rig.Create();
    rig.api.principal() = orch::test::HandlerHarness::User("https://other-iam.example/", "mallory");
    const std::string theirs = rig.Create();
    std::vector<orch::server::Response> other_streams;
    for (int i = 0; i < 100; ++i) {
        other_streams.push_back(rig.api.Call("GET", "/events"));
        (void)Rig::Next(other_streams.back());
    }
    rig.api.principal() = orch::test::HandlerHarness::User("https://iam.example/", "alice");
    std::vector<orch::server::Response> my_streams;
    for (int i = 0; i < 100; ++i) {
        my_streams.push_back(rig.api.Call("GET", "/events"));
        REQUIRE(my_streams.back().status == 200);
        (void)Rig::Next(my_streams.back());
    }
    const int after_before = rig.log.after_reads;
    const int range_before = rig.log.range_reads;

    rig.Append(mine, EventType::kProgress, Json{{"statusReason", "placing"}});
    rig.Append(theirs, EventType::kProgress, Json{{"statusReason", "theirs"}});
    rig.api.clock.Advance(seconds(1));
    for (const auto& stream : my_streams) {
        const std::string text = Rig::Next(stream);
        CHECK(text.find("\"deploymentId\":\"" + mine + "\"") != std::string::npos);
        CHECK(text.find(theirs) == std::string::npos);
    }
    for (const auto& stream : other_streams) {
        const std::string text = Rig::Next(stream);
        CHECK(text.find(theirs) != std::string::npos);
        CHECK(text.find(mine) == std::string::npos);
    }
    // 200 streams, two events: one read of the log for all of them, none of their own.
    CHECK(rig.log.range_reads - range_before == 1);
    CHECK(rig.log.after_reads - after_before == 0);
    for (const auto& stream : my_streams) {
        CHECK(stream.stream->Idle());
    }
}

TEST_CASE("a stream behind the window reads the log itself, then joins the window", "[events]") {
    orch::api::EventStreamOptions options = kOptions;
    options.window_events = 2;
    Rig rig(options);
    const std::string id = rig.Create();
    const auto live = rig.api.Call("GET", "/events");  // starts the window at the newest id (none yet)
    (void)Rig::Next(live);
    for (int i = 0; i < 5; ++i) {
        rig.Append(id, EventType::kProgress, Json{{"n", i}});
    }
    rig.api.clock.Advance(seconds(1));
    const std::string five = Rig::Next(live);  // the window read all five, keeps the last two
    CHECK(five.find("id: 1\n") != std::string::npos);
    CHECK(five.find("id: 5\n") != std::string::npos);

    // A resume from id 1: events 2..3 have left the window, so this stream reads the log.
    const int after_before = rig.log.after_reads;
    const auto resumed = rig.api.Call("GET", "/events?lastEventId=1");
    const std::string text = Rig::Next(resumed);
    CHECK(rig.log.after_reads - after_before == 1);
    CHECK(text.find("id: 1\n") == std::string::npos);
    for (const std::string want : {"id: 2\n", "id: 3\n", "id: 4\n", "id: 5\n"}) {
        CHECK(text.find(want) != std::string::npos);
    }
    // Caught up: the next event comes from the window.
    rig.Append(id, EventType::kCompleted, Json{{"status", "CREATE_COMPLETE"}});
    rig.api.clock.Advance(seconds(1));
    CHECK(Rig::Next(live).find("id: 6\n") != std::string::npos);
    CHECK(Rig::Next(resumed).rfind("id: 6\nevent: completed\n", 0) == 0);
    CHECK(rig.log.after_reads - after_before == 1);
}
