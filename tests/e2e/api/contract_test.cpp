// Contract tests (api-contract.md): the real binary, real PostgreSQL, the real TOSCA engine and
// placement on a catalogue whose sites cannot take the deployment (so create ends CREATE_FAILED
// with the placement's reasons, which is all these tests need).
#include "api_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <thread>

namespace {

using orch::Json;
using orch::http::ClientResponse;
using orch::test::MarathonTemplate;

class Api : public orch::test::ApiHarness {
   public:
    // The tests act as the reverse proxy too (X-Forwarded-* links): trust the loopback peer.
    Api() : ApiHarness("contract", std::string(kLoopbackCallbacks) + kTrustLoopbackProxy) {}
    static constexpr const char* kTrustLoopbackProxy = "server:\n  trusted_proxies: [127.0.0.1, \"::1\"]\n";

    std::string Create(Json body = Json::object()) {
        body["template"] = MarathonTemplate();
        const auto res = Call("POST", "/deployments", body.dump());
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"];
    }
};

std::string ErrorMessage(const ClientResponse& res, int status) {
    CHECK(res.status == status);
    const auto body = Json::parse(res.body);
    CHECK(body["code"] == status);
    return body["message"].get<std::string>();
}

}  // namespace

TEST_CASE("create answers 201 with the dashboard's required fields, string booleans accepted", "[e2e][contract]") {
    Api api;
    const auto res = api.Call(
        "POST",
        "/deployments/",  // trailing slash, as the dashboard posts
        Json{
            {"template", MarathonTemplate()},
            {"parameters", Json::object()},
            {"keepLastAttempt", "true"},
            {"providerTimeoutMins", "720"},
            {"timeoutMins", 1440},
            {"callback", "http://127.0.0.1:1/callback"},
            {"unknownField", 1}}
            .dump()
    );
    REQUIRE(res.status == 201);
    CHECK(res.Header("Location").empty());
    const auto d = Json::parse(res.body);
    for (const char* key : {"uuid", "creationTime", "updateTime", "status", "outputs", "task", "links", "createdBy"}) {
        CHECK(d.contains(key));
    }
    CHECK(d["status"] == "CREATE_IN_PROGRESS");
    CHECK(d["task"] == "NONE");
    CHECK(d["outputs"] == Json::object());
    CHECK(d["createdBy"]["subject"].is_string());
    CHECK_FALSE(d.contains("physicalId"));
    CHECK_FALSE(d.contains("statusReason"));
    CHECK(std::string(d["creationTime"]).size() == 21);  // yyyy-MM-ddTHH:mm+0000
    CHECK(std::string(d["creationTime"]).substr(16) == "+0000");
    CHECK(d["links"][0]["rel"] == "self");
    CHECK(d["links"][0]["href"] == api.base() + "/deployments/" + std::string(d["uuid"]));
}

TEST_CASE("bad create bodies get the contract's 400/415 messages and store nothing", "[e2e][contract]") {
    Api api;
    CHECK(ErrorMessage(api.Call("POST", "/deployments", "{}"), 400) == "A TOSCA template must be provided");
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", Json{{"template", "x"}, {"callback", "ftp://x"}}.dump()), 400) ==
        "Callback value, if provided, must be a valid HTTP or HTTPS URL"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", Json{{"template", "x"}, {"timeoutMins", 0}}.dump()), 400) ==
        "Overall timeout value, if provided, must be at least of 1 minute"
    );
    CHECK(
        ErrorMessage(
            api.Call(
                "POST", "/deployments", Json{{"template", "x"}, {"timeoutMins", 5}, {"providerTimeoutMins", 10}}.dump()
            ),
            400
        ) == "ProviderTimeout must be <= Timeout"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", Json{{"template", "x"}, {"maxProvidersRetry", 0}}.dump()), 400) ==
        "maxProvidersRetry value, if provided, must be at least of 1"
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", "{not json", {{"Content-Type", "application/json"}}), 400)
            .rfind("Could not read document", 0) == 0
    );
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", "x=1", {{"Content-Type", "text/plain"}}), 415) ==
        "Content type 'text/plain' not supported"
    );
    const auto tosca = ErrorMessage(
        api.Call("POST", "/deployments", Json{{"template", "tosca_definitions_version: nope\n"}}.dump()), 400
    );
    CHECK(tosca.find("tosca_definitions_version") != std::string::npos);
    const auto list = Json::parse(api.Call("GET", "/deployments").body);
    CHECK(list["page"]["totalElements"] == 0);
}

TEST_CASE("lists page with absolute links that orchent and the dashboard follow", "[e2e][contract]") {
    Api api;
    for (int i = 0; i < 12; ++i) {
        api.Create();
    }
    const auto first = Json::parse(api.Call("GET", "/deployments?size=5").body);
    CHECK(first["content"].size() == 5);
    CHECK(first["page"] == Json{{"size", 5}, {"totalElements", 12}, {"totalPages", 3}, {"number", 0}});
    // Past the last page: no rows, and still the total (the store asks the counters separately).
    const auto beyond = Json::parse(api.Call("GET", "/deployments?size=5&page=7").body);
    CHECK(beyond["content"].empty());
    CHECK(beyond["page"] == Json{{"size", 5}, {"totalElements", 12}, {"totalPages", 3}, {"number", 7}});
    std::vector<std::string> rels;
    std::string next;
    for (const auto& link : first["links"]) {
        rels.push_back(link["rel"]);
        if (link["rel"] == "next") {
            next = link["href"];
        }
    }
    CHECK(rels == std::vector<std::string>{"first", "self", "next", "last"});
    CHECK(first["links"][1]["href"] == api.base() + "/deployments{?createdBy,userGroup}");
    CHECK(next == api.base() + "/deployments?page=1&size=5&sort=createdAt,desc");
    std::set<std::string> seen;
    std::string url = api.base() + "/deployments?size=5";
    while (!url.empty()) {  // the dashboard's loop: follow next until it disappears
        const auto page = Json::parse(api.Call("GET", url).body);
        for (const auto& d : page["content"]) {
            CHECK(seen.insert(d["uuid"]).second);
        }
        url.clear();
        for (const auto& link : page["links"]) {
            if (link["rel"] == "next") {
                url = link["href"];
            }
        }
    }
    CHECK(seen.size() == 12);
    const auto newest = Json::parse(api.Call("GET", "/deployments?size=12").body)["content"];
    for (std::size_t i = 1; i < newest.size(); ++i) {
        CHECK(std::string(newest[i - 1]["uuid"]) > std::string(newest[i]["uuid"]));  // newest first
    }
    const auto proxied = api.Call(
        "GET",
        "/deployments?size=5",
        "",
        {{"X-Forwarded-Proto", "https"},
         {"X-Forwarded-Host", "paas.example.org"},
         {"X-Forwarded-Prefix", "/orchestrator"}}
    );
    CHECK(
        Json::parse(proxied.body)["links"][2]["href"] ==
        "https://paas.example.org/orchestrator/deployments?page=1&size=5&sort=createdAt,desc"
    );
}

TEST_CASE("failed placement explains itself, excludedStatus filters, createdBy=me works", "[e2e][contract]") {
    Api api;
    const auto id = api.Create();
    const auto d = api.WaitFor(id, "CREATE_FAILED");
    CHECK(std::string(d["statusReason"]).rfind("No cloud provider meets the deployment requirements", 0) == 0);
    // [post-4.0.1] the log falls back to the status reason; ours also has a line per progress
    // step (api.md "/log tells the progress"), the last of which carries the same cause.
    CHECK(
        api.Call("GET", "/deployments/" + id + "/log").body.find("CREATE_FAILED: " + std::string(d["statusReason"])) !=
        std::string::npos
    );
    CHECK(api.Call("GET", "/deployments/" + id + "/extrainfo").body == "[]");
    CHECK(api.Call("GET", "/deployments/" + id + "/template").body == MarathonTemplate());
    const auto placement = api.Call("GET", "/deployments/" + id + "/placement");
    CHECK(placement.status == 200);
    CHECK(
        Json::parse(api.Call("GET", "/deployments?excludedStatus=CREATE_FAILED,DELETE_COMPLETE").body
        )["page"]["totalElements"] == 0
    );
    CHECK(Json::parse(api.Call("GET", "/deployments?createdBy=me").body)["page"]["totalElements"] == 1);
    CHECK(
        ErrorMessage(api.Call("GET", "/deployments?createdBy=nobody"), 400) ==
        "Value nobody for param createdBy is illegal"
    );
    const auto config = Json::parse(api.Call("GET", "/configuration").body);
    for (const auto& [key, value] : config.items()) {
        CHECK(value.is_string());
    }
}

TEST_CASE("resources: paged, filtered through the type hierarchy, one by one", "[e2e][contract]") {
    Api api;
    const auto id = api.Create();
    const auto all = Json::parse(api.Call("GET", "/deployments/" + id + "/resources/").body);
    REQUIRE(all["content"].size() == 2);  // the Marathon app and its Docker runtime
    for (const auto& r : all["content"]) {
        CHECK(r["requiredBy"] == Json::array());
        CHECK(r["metadata"].is_object());
        CHECK(r["links"][0]["rel"] == "deployment");
    }
    const auto filtered = Json::parse(
        api.Call("GET", "/deployments/" + id + "/resources/filter?type=tosca.nodes.Container.Application.Docker").body
    );
    REQUIRE(filtered.is_array());
    REQUIRE(filtered.size() == 1);
    CHECK(filtered[0]["toscaNodeName"] == "marathon");
    CHECK(
        ErrorMessage(api.Call("GET", "/deployments/" + id + "/resources/filter"), 400) ==
        "Required String parameter 'type' is not present"
    );
    const std::string rid = filtered[0]["uuid"];
    CHECK(api.Call("GET", "/deployments/" + id + "/resources/" + rid).status == 200);
    const std::string missing = orch::RandomUuid();
    CHECK(
        ErrorMessage(api.Call("GET", "/deployments/" + id + "/resources/" + missing), 404) ==
        "The resource <" + missing + "> in deployment <" + id + "> doesn't exist"
    );
}

TEST_CASE("delete, reset and update follow the state rules", "[e2e][contract]") {
    Api api;
    const std::string unknown = orch::RandomUuid();
    CHECK(
        ErrorMessage(api.Call("GET", "/deployments/" + unknown), 404) ==
        "The deployment <" + unknown + "> doesn't exist"
    );
    const auto id = api.Create();
    api.WaitFor(id, "CREATE_FAILED");
    CHECK(
        ErrorMessage(api.Call("PUT", "/deployments/" + id, Json{{"template", MarathonTemplate()}}.dump()), 409) ==
        "Cannot update a deployment in CREATE_FAILED state"
    );
    CHECK(
        ErrorMessage(api.Call("PATCH", "/deployments/" + id, Json{{"status", "CREATE_COMPLETE"}}.dump()), 400) ==
        "Cannot reset deployment: illegal status CREATE_COMPLETE."
    );
    CHECK(
        ErrorMessage(api.Call("PATCH", "/deployments/" + id, Json{{"status", "DELETE_FAILED"}}.dump()), 409) ==
        "Cannot reset a deployment in CREATE_FAILED state"
    );
    // The dashboard sends a JSON list as the body of DELETE: tolerated.
    const auto deleted = api.Call("DELETE", "/deployments/" + id + "?force=True", "[\"x\"]");
    CHECK(deleted.status == 204);
    CHECK(deleted.body.empty());
    // v4.0.1: the deployment is removed once deleted (admins keep an audit record, dropin_test).
    api.WaitFor(id + "?includeDeleted=true", "DELETE_COMPLETE");
    CHECK(ErrorMessage(api.Call("GET", "/deployments/" + id), 404) == "The deployment <" + id + "> doesn't exist");
    CHECK(ErrorMessage(api.Call("DELETE", "/deployments/" + id), 404) == "The deployment <" + id + "> doesn't exist");
    const auto resources = Json::parse(api.Call("GET", "/deployments/" + id + "/resources?includeDeleted=true").body);
    for (const auto& r : resources["content"]) {
        CHECK(r["state"] == "DELETED");
    }
}
