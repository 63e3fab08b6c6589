// Contract tests for /schedules (api-contract.md §1.5, §2 rows 17-21, §3.17) and our file
// notification endpoint: the real binary with auth disabled, real PostgreSQL, the real TOSCA
// engine, and an empty catalogue (so an event's deployment ends CREATE_FAILED in placement,
// which proves it went through the workflow).
#include "api_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <set>
#include <thread>

namespace {

using orch::Json;
using orch::http::ClientResponse;
using orch::test::MarathonTemplate;

Json ScheduleBody() {
    return Json{
        {"template", MarathonTemplate()},
        {"fileExpression", "user\\.alice:.*\\.root"},
        {"replicationExpression", "CNAF_DISK"},
        {"numberOfReplicas", 2}};
}

class Api : public orch::test::ApiHarness {
   public:
    /// `extra_yaml` comes after the harness's own (loopback callbacks allowed: the tests' targets).
    explicit Api(const std::string& extra_yaml = "")
        : ApiHarness("schedules", std::string(kLoopbackCallbacks) + extra_yaml) {}

    Json CreateSchedule(Json body = ScheduleBody()) {
        const auto res = Call("POST", "/schedules", body.dump());
        REQUIRE(res.status == 201);
        return Json::parse(res.body);
    }

    Json Notify(const std::string& scope, const std::string& name) {
        const auto res = Call("POST", "/schedules/notifications", Json{{"scope", scope}, {"name", name}}.dump());
        REQUIRE(res.status == 200);
        return Json::parse(res.body);
    }
};

std::string ErrorMessage(const ClientResponse& res, int status) {
    CHECK(res.status == status);
    const auto body = Json::parse(res.body);
    CHECK(body["code"] == status);
    CHECK(body["title"].is_string());
    return body["message"].get<std::string>();
}

std::vector<std::string> Rels(const Json& page) {
    std::vector<std::string> rels;
    for (const auto& link : page["links"]) {
        rels.push_back(link["rel"]);
    }
    return rels;
}

std::string Href(const Json& page, const std::string& rel) {
    for (const auto& link : page["links"]) {
        if (link["rel"] == rel) {
            return link["href"];
        }
    }
    return "";
}

}  // namespace

TEST_CASE("POST /schedules answers 201 with the Schedule shape, readable by id and template", "[e2e][schedules]") {
    Api api;
    Json body = ScheduleBody();
    body["callback"] = "http://127.0.0.1:1/callback";
    body["numberOfReplicas"] = "3";  // integers accept numeric strings
    body["userGroup"] = "ignored";   // accepted, not stored
    body["timeoutMins"] = 60;
    const auto res = api.Call("POST", "/schedules/", body.dump());  // trailing slash accepted
    REQUIRE(res.status == 201);
    CHECK(res.Header("Location").empty());
    CHECK(res.Header("Content-Type") == "application/json;charset=UTF-8");
    const auto s = Json::parse(res.body);
    const std::string id = s["uuid"];
    CHECK(id.size() == 36);
    CHECK(std::string(s["creationTime"]).size() == 21);  // yyyy-MM-ddTHH:mm+0000
    CHECK(std::string(s["creationTime"]).substr(16) == "+0000");
    CHECK(s["updateTime"] == s["creationTime"]);
    CHECK(s["status"] == "RUNNING");
    CHECK(s["fileExpression"] == "user\\.alice:.*\\.root");
    CHECK(s["replicationExpression"] == "CNAF_DISK");
    CHECK(s["numberOfReplicas"] == 3);
    CHECK(s["callback"] == "http://127.0.0.1:1/callback");
    CHECK(s["createdBy"] == Json{{"issuer", "local"}, {"subject", "local-user"}});
    CHECK(s["links"] == Json::array({{{"rel", "self"}, {"href", api.base() + "/schedules/" + id}}}));
    std::set<std::string> keys;
    for (const auto& [key, value] : s.items()) {
        keys.insert(key);
    }
    CHECK(
        keys ==
        std::set<std::string>{
            "uuid",
            "creationTime",
            "updateTime",
            "status",
            "fileExpression",
            "replicationExpression",
            "numberOfReplicas",
            "callback",
            "createdBy",
            "links"}
    );

    const auto got = api.Call("GET", "/schedules/" + id);
    CHECK(got.status == 200);
    CHECK(Json::parse(got.body) == s);
    const auto no_callback = api.CreateSchedule();
    CHECK_FALSE(no_callback.contains("callback"));  // null members are omitted

    const auto tmpl = api.Call("GET", "/schedules/" + id + "/template", "", {{"Accept", "text/plain"}});
    CHECK(tmpl.status == 200);
    CHECK(tmpl.body == MarathonTemplate());  // raw, not JSON-quoted
    CHECK(tmpl.Header("Content-Type") == "text/plain;charset=UTF-8");
}

TEST_CASE("bad schedule bodies get the contract's 400 and 415 messages and store nothing", "[e2e][schedules]") {
    Api api;
    const auto without = [](const char* field) {
        Json body = ScheduleBody();
        body.erase(field);
        return body.dump();
    };
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", without("template")), 400) == "A TOSCA template must be provided"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", without("fileExpression")), 400) ==
        "The expression to be used to monitor new files available"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", without("replicationExpression")), 400) ==
        "The expression to be used to replicate the files"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", without("numberOfReplicas")), 400) ==
        "The number of file replicas required"
    );
    Json null_field = ScheduleBody();
    null_field["numberOfReplicas"] = nullptr;
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", null_field.dump()), 400) == "The number of file replicas required"
    );
    Json bad_regex = ScheduleBody();
    bad_regex["fileExpression"] = "user:(unclosed";
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", bad_regex.dump()), 400)
            .rfind("fileExpression is not a valid regular expression", 0) == 0
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", "x=1", {{"Content-Type", "text/plain"}}), 415) ==
        "Content type 'text/plain' not supported"
    );
    CHECK(ErrorMessage(api.Call("POST", "/schedules", "{not json"), 400).rfind("Could not read document", 0) == 0);

    // Template and request-field errors are exactly those of POST /deployments for the same body.
    const std::vector<std::pair<const char*, Json>> deployment_errors = {
        {"template", "tosca_definitions_version: nope\n"},
        {"template",
         "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  inputs:\n"
         "    needed: {type: string}\n  node_templates:\n    n:\n      type: tosca.nodes.Root\n"
         "      properties: {x: {get_input: needed}}\n"},
        {"parameters", nullptr},
        {"callback", "ftp://x"},
        {"maxProvidersRetry", 0},
    };
    for (const auto& [field, value] : deployment_errors) {
        Json body = ScheduleBody();
        body[field] = value;
        const auto schedule = api.Call("POST", "/schedules", body.dump());
        const auto deployment = api.Call("POST", "/deployments", body.dump());
        INFO(field << " = " << value.dump());
        CHECK(schedule.status == 400);
        CHECK(schedule.status == deployment.status);
        CHECK(Json::parse(schedule.body) == Json::parse(deployment.body));
    }
    CHECK(Json::parse(api.Call("GET", "/schedules").body)["page"]["totalElements"] == 0);
}

TEST_CASE(
    "unknown schedules are 404 with the deployment text, have no events, and PUT or DELETE are 405", "[e2e][schedules]"
) {
    Api api;
    const std::string unknown = orch::RandomUuid();
    const std::string text = "The deployment <" + unknown + "> doesn't exist";
    CHECK(ErrorMessage(api.Call("GET", "/schedules/" + unknown), 404) == text);
    // As the original: events are queried by schedule id without looking the schedule up.
    const auto no_events = api.Call("GET", "/schedules/" + unknown + "/events");
    CHECK(no_events.status == 200);
    CHECK(Json::parse(no_events.body)["content"] == Json::array());
    CHECK(Json::parse(no_events.body)["page"]["totalElements"] == 0);
    CHECK(api.Call("GET", "/schedules/not-a-uuid/events").status == 200);
    CHECK(ErrorMessage(api.Call("GET", "/schedules/" + unknown + "/template"), 404) == text);
    CHECK(ErrorMessage(api.Call("GET", "/schedules/not-a-uuid"), 404) == "The deployment <not-a-uuid> doesn't exist");
    const std::string id = api.CreateSchedule()["uuid"];
    const auto del = api.Call("DELETE", "/schedules/" + id);
    CHECK(ErrorMessage(del, 405) == "Request method 'DELETE' not supported");
    CHECK(del.Header("Allow") == "GET");
    const auto put = api.Call("PUT", "/schedules/" + id, ScheduleBody().dump());
    CHECK(ErrorMessage(put, 405) == "Request method 'PUT' not supported");
    const auto put_list = api.Call("PUT", "/schedules", ScheduleBody().dump());
    CHECK(ErrorMessage(put_list, 405) == "Request method 'PUT' not supported");
    CHECK(put_list.Header("Allow").find("POST") != std::string::npos);
    CHECK(put_list.Header("Allow").find("GET") != std::string::npos);
    CHECK(api.Call("GET", "/schedules/" + id).status == 200);  // still there
}

TEST_CASE("schedule lists page with the contract's links and createdBy rules", "[e2e][schedules]") {
    Api api;
    std::vector<std::string> ids;
    for (int i = 0; i < 12; ++i) {
        ids.push_back(api.CreateSchedule()["uuid"]);
    }
    const auto first = Json::parse(api.Call("GET", "/schedules?size=5").body);
    CHECK(first["page"] == Json{{"size", 5}, {"totalElements", 12}, {"totalPages", 3}, {"number", 0}});
    CHECK(first["content"].size() == 5);
    CHECK(first["content"][0]["uuid"] == ids.back());  // newest first
    CHECK(first["content"][0]["links"][0]["rel"] == "self");
    CHECK(Rels(first) == std::vector<std::string>{"first", "self", "next", "last"});
    CHECK(Href(first, "self") == api.base() + "/schedules{?createdBy}");
    CHECK(Href(first, "next") == api.base() + "/schedules?page=1&size=5&sort=createdAt,desc");
    CHECK(Href(first, "last") == api.base() + "/schedules?page=2&size=5&sort=createdAt,desc");
    std::set<std::string> seen;
    std::string url = api.base() + "/schedules?size=5";
    while (!url.empty()) {  // the dashboard's loop: follow next until it disappears
        const auto page = Json::parse(api.Call("GET", url).body);
        for (const auto& s : page["content"]) {
            CHECK(seen.insert(s["uuid"]).second);
        }
        url = Href(page, "next");
    }
    CHECK(seen == std::set<std::string>(ids.begin(), ids.end()));
    const auto middle = Json::parse(api.Call("GET", "/schedules?page=1&size=5").body);
    CHECK(Rels(middle) == std::vector<std::string>{"first", "prev", "self", "next", "last"});

    const auto mine = Json::parse(api.Call("GET", "/schedules?createdBy=me&size=20").body);
    CHECK(mine["page"]["totalElements"] == 12);
    CHECK(Rels(mine) == std::vector<std::string>{"self"});
    CHECK(Href(mine, "self") == api.base() + "/schedules?createdBy=me");
    const auto named =
        Json::parse(api.Call("GET", "/schedules?createdBy=local-user@local").body);  // the local user is admin
    CHECK(named["page"]["totalElements"] == 12);
    CHECK(Href(named, "self") == api.base() + "/schedules?createdBy=local-user@local");
    CHECK(
        Href(named, "next") == api.base() + "/schedules?createdBy=local-user@local&page=1&size=10&sort=createdAt,desc"
    );
    CHECK(Json::parse(api.Call("GET", "/schedules?createdBy=someone@local").body)["page"]["totalElements"] == 0);
    CHECK(
        ErrorMessage(api.Call("GET", "/schedules?createdBy=nobody"), 400) ==
        "Value nobody for param createdBy is illegal"
    );
    const auto oldest = Json::parse(api.Call("GET", "/schedules?size=1&sort=createdAt,asc").body);
    CHECK(oldest["content"][0]["uuid"] == ids.front());
    CHECK(Href(oldest, "next") == api.base() + "/schedules?page=1&size=1&sort=createdAt,asc");
    CHECK(
        ErrorMessage(api.Call("GET", "/schedules?sort=cloudProviderName"), 400) ==
        "No property cloud_provider_name found for sorting"
    );
}

TEST_CASE(
    "a matching file creates one event whose deployment is nested in events and listed in deployments",
    "[e2e][schedules]"
) {
    Api api;
    const std::string matching = api.CreateSchedule()["uuid"];
    Json other_body = ScheduleBody();
    other_body["fileExpression"] = "user\\.bob:.*";
    const std::string other = api.CreateSchedule(other_body)["uuid"];

    const auto outcome = api.Notify("user.alice", "run1.root");
    CHECK(outcome["scope"] == "user.alice");
    CHECK(outcome["name"] == "run1.root");
    REQUIRE(outcome["events"].size() == 1);
    CHECK(outcome["events"][0]["schedule"] == matching);
    CHECK(outcome["failed"] == Json::array());
    const std::string event_id = outcome["events"][0]["event"];
    const std::string deployment_id = outcome["events"][0]["deployment"];

    const auto again = api.Notify("user.alice", "run1.root");  // once per file
    CHECK(again["events"] == Json::array());
    CHECK(again["alreadyNotified"] == Json::array({matching}));
    // The whole "scope:name" must match (Java's Matcher.matches()), not a part of it.
    CHECK(api.Notify("user.alice", "run1.root.tmp")["events"] == Json::array());
    CHECK(api.Notify("xuser.alice", "run1.root")["events"] == Json::array());

    const auto events = Json::parse(api.Call("GET", "/schedules/" + matching + "/events").body);
    CHECK(events["page"] == Json{{"size", 10}, {"totalElements", 1}, {"totalPages", 1}, {"number", 0}});
    CHECK(
        events["links"] ==
        Json::array(
            {{{"rel", "self"},
              {"href", api.base() + "/schedules/" + matching + "/events?page=0&size=10&sort=createdAt,desc"}}}
        )
    );
    REQUIRE(events["content"].size() == 1);
    const auto& e = events["content"][0];
    CHECK(e["uuid"] == event_id);
    CHECK(e["scope"] == "user.alice");
    CHECK(e["name"] == "run1.root");
    CHECK(e["links"] == Json::array());
    CHECK_FALSE(e.contains("replicationStatus"));
    CHECK(std::string(e["creationTime"]).size() == 21);
    REQUIRE(e.contains("deployment"));
    CHECK(e["deployment"]["uuid"] == deployment_id);
    CHECK(e["deployment"]["links"] == Json::array());
    CHECK(e["deployment"]["createdBy"] == Json{{"issuer", "local"}, {"subject", "local-user"}});
    CHECK(Json::parse(api.Call("GET", "/schedules/" + other + "/events").body)["page"]["totalElements"] == 0);

    // The deployment is an ordinary one: listed, and run by the workflow (placement fails on the
    // empty catalogue, as for POST /deployments).
    const auto list = Json::parse(api.Call("GET", "/deployments").body);
    REQUIRE(list["content"].size() == 1);
    CHECK(list["content"][0]["uuid"] == deployment_id);
    const auto failed = api.WaitFor(deployment_id, "CREATE_FAILED");
    CHECK(std::string(failed["statusReason"]).rfind("No cloud provider meets the deployment requirements", 0) == 0);
    CHECK(api.Call("GET", "/deployments/" + deployment_id + "/template").body == MarathonTemplate());
    const auto nested = Json::parse(api.Call("GET", "/schedules/" + matching + "/events").body)["content"][0];
    CHECK(nested["deployment"]["status"] == "CREATE_FAILED");  // the nested object is the live deployment
}

TEST_CASE("a schedule's target provider and region go to the deployments its events create", "[e2e][schedules]") {
    Api api;
    Json body = ScheduleBody();
    body["targetProvider"] = "RECAS-BARI";
    body["targetRegion"] = "RegionTwo";
    api.CreateSchedule(body);
    const auto outcome = api.Notify("user.alice", "run2.root");
    REQUIRE(outcome["events"].size() == 1);
    const std::string deployment_id = outcome["events"][0]["deployment"];
    api.WaitFor(deployment_id, "CREATE_FAILED");
    const auto placement = api.Call("GET", "/deployments/" + deployment_id + "/placement");
    REQUIRE(placement.status == 200);
    INFO(placement.body);
    const Json notes = Json::parse(placement.body)["notes"];
    CHECK(
        std::count(
            notes.begin(), notes.end(), Json("the request targets provider 'RECAS-BARI' in region 'RegionTwo'")
        ) == 1
    );
}

TEST_CASE("event lists page, and bad notifications get 400 and 415", "[e2e][schedules]") {
    Api api;
    const std::string id = api.CreateSchedule()["uuid"];
    for (int i = 0; i < 3; ++i) {
        REQUIRE(api.Notify("user.alice", "f" + std::to_string(i) + ".root")["events"].size() == 1);
    }
    const auto page = Json::parse(api.Call("GET", "/schedules/" + id + "/events?size=2").body);
    CHECK(page["page"] == Json{{"size", 2}, {"totalElements", 3}, {"totalPages", 2}, {"number", 0}});
    CHECK(Rels(page) == std::vector<std::string>{"first", "self", "next", "last"});
    const std::string events = api.base() + "/schedules/" + id + "/events";
    CHECK(Href(page, "self") == events + "?page=0&size=2&sort=createdAt,desc");
    CHECK(Href(page, "next") == events + "?page=1&size=2&sort=createdAt,desc");
    REQUIRE(page["content"].size() == 2);
    CHECK(page["content"][0]["name"] == "f2.root");  // newest first
    const auto last = Json::parse(api.Call("GET", Href(page, "next")).body);
    REQUIRE(last["content"].size() == 1);
    CHECK(last["content"][0]["name"] == "f0.root");
    CHECK(Href(last, "self") == events + "?page=1&size=2&sort=createdAt,desc");
    CHECK(Json::parse(api.Call("GET", "/deployments").body)["page"]["totalElements"] == 3);

    CHECK(
        ErrorMessage(api.Call("POST", "/schedules/notifications", Json{{"name", "x"}}.dump()), 400) ==
        "A file scope must be provided"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules/notifications", Json{{"scope", "user.alice"}}.dump()), 400) ==
        "A file name must be provided"
    );
    CHECK(
        ErrorMessage(
            api.Call(
                "POST",
                "/schedules/notifications",
                Json{{"scope", "user.alice"}, {"name", std::string(1025, 'n')}}.dump()
            ),
            400
        ) == "A file name must be at most 1024 bytes"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules/notifications", "x", {{"Content-Type", "text/plain"}}), 415) ==
        "Content type 'text/plain' not supported"
    );
}

namespace {

// Seconds since the epoch of an API time ("2026-11-28T06:11:03Z").
std::time_t EpochOf(const std::string& iso) {
    std::tm tm{};
    REQUIRE(strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) != nullptr);
    return timegm(&tm);
}

}  // namespace

TEST_CASE(
    "a schedule's deploymentExpiresAfterMins is checked, shown and its events' deployments' lease", "[e2e][schedules]"
) {
    Api api("leases:\n  default_duration: 2h\n  max_duration: 24h\n");
    Json body = ScheduleBody();
    body["deploymentExpiresAfterMins"] = 24 * 60 + 1;
    CHECK(
        ErrorMessage(api.Call("POST", "/schedules", body.dump()), 400)
            .rfind("deploymentExpiresAfterMins is beyond the maximum lease of 24h (latest allowed: ", 0) == 0
    );
    body["deploymentExpiresAfterMins"] = 90;
    const Json schedule = api.CreateSchedule(body);
    CHECK(schedule["deploymentExpiresAfterMins"] == 90);
    const Json shown = Json::parse(api.Call("GET", "/schedules/" + schedule["uuid"].get<std::string>()).body);
    CHECK(shown["deploymentExpiresAfterMins"] == 90);

    const std::time_t before = std::time(nullptr);
    const auto outcome = api.Notify("user.alice", "leased.root");
    const std::time_t after = std::time(nullptr);
    REQUIRE(outcome["events"].size() == 1);
    const std::string deployment_id = outcome["events"][0]["deployment"];
    const Json d = Json::parse(api.Call("GET", "/deployments/" + deployment_id).body);
    INFO(d.dump());
    const std::time_t expires = EpochOf(d.value("expiresAt", ""));
    CHECK(expires >= before + 90 * 60 - 1);  // 90 min, not the 2 h default
    CHECK(expires <= after + 90 * 60 + 1);
}
