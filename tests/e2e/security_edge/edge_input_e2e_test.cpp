// Classes 6 and 7 of issue 16 against the real binary: text that would change meaning on the way
// to storage (NUL, invalid UTF-8) is refused at the edge naming the field; ambiguous headers are
// refused; forwarding headers count only from trusted proxies.
#include "../api/api_harness.hpp"
#include "test_support/raw_http.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::test::ApiHarness;
using orch::test::MarathonTemplate;

std::string Message400(const orch::http::ClientResponse& res) {
    CHECK(res.status == 400);
    const auto body = Json::parse(res.body);
    CHECK(body["code"] == 400);
    CHECK(body["title"] == "Bad Request");
    return body["message"];
}

int StatusOf(const std::string& raw) {
    return raw.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(raw.substr(9, 3)) : 0;
}

std::string SelfHref(const std::string& body) {
    const Json page = Json::parse(body);  // kept alive: the loop ranges over a part of it
    for (const auto& link : page["links"]) {
        if (link["rel"] == "self") {
            return link["href"];
        }
    }
    return "(no self link in " + body + ")";
}

}  // namespace

TEST_CASE(
    "a NUL in template, userGroup, callback or parameters is refused naming the field", "[e2e][security][input]"
) {
    ApiHarness api("edge-nul");
    const std::string nul("\0", 1);
    const auto refused = [&](Json body, const std::string& field) {
        INFO(field);
        const auto res = api.Call("POST", "/deployments", body.dump());
        CHECK(Message400(res).find("'" + field + "'") != std::string::npos);
        CHECK(res.body.find("ERROR") == std::string::npos);
    };
    refused(Json{{"template", MarathonTemplate() + nul + "\ntopology_template: {}\n"}}, "template");
    refused(Json{{"template", MarathonTemplate()}, {"userGroup", "grp" + nul + "x"}}, "userGroup");
    refused(Json{{"template", MarathonTemplate()}, {"callback", "http://127.0.0.1:1/cb" + nul + "x"}}, "callback");
    refused(Json{{"template", MarathonTemplate()}, {"parameters", {{"cpus", "1" + nul}}}}, "parameters.cpus");
    // Invalid UTF-8 in the body: 400, never a 500.
    const auto bad_utf8 = api.Call("POST", "/deployments", "{\"template\":\"x\xff\"}");
    CHECK(Message400(bad_utf8).find("UTF-8") != std::string::npos);
    CHECK(Json::parse(api.Call("GET", "/deployments").body)["page"]["totalElements"] == 0);
}

TEST_CASE("the stored template is byte for byte the validated one", "[e2e][security][input]") {
    ApiHarness api("edge-stored");
    const std::string text = MarathonTemplate() + "\n# r\xc3\xa9sum\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n";
    const auto res = api.Call("POST", "/deployments", Json{{"template", text}}.dump());
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"];
    CHECK(api.Call("GET", "/deployments/" + id + "/template", "", {{"Accept", "text/plain"}}).body == text);
}

TEST_CASE("NUL or invalid UTF-8 in a query filter is refused naming the parameter", "[e2e][security][input]") {
    ApiHarness api("edge-query");
    const auto created = api.Call("POST", "/deployments", Json{{"template", MarathonTemplate()}}.dump());
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"];
    for (const char* bad : {"%00", "a%00b", "%FF", "%C0%AF", "%ED%A0%80"}) {
        for (const auto& [path, name] : std::vector<std::pair<std::string, std::string>>{
                 {"/deployments", "userGroup"},
                 {"/deployments", "createdBy"},
                 {"/deployments", "excludedStatus"},
                 {"/deployments/" + id + "/resources", "type"},
                 {"/schedules", "createdBy"}}) {
            INFO(path << "?" << name << "=" << bad);
            const auto res = api.Call("GET", path + "?" + name + "=" + bad);
            CHECK(Message400(res).find("'" + name + "'") != std::string::npos);
        }
    }
}

TEST_CASE("a repeated Authorization or Host header is refused with 400", "[e2e][security][headers]") {
    ApiHarness api("edge-headers");
    const auto send = [&](const std::string& headers) {
        return orch::test::RawExchange(
            api.port(), "GET /deployments HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "Connection: close\r\n\r\n"
        );
    };
    CHECK(StatusOf(send("")) == 200);
    const std::string twice = send("Authorization: Bearer first\r\nAuthorization: Bearer second\r\n");
    CHECK(StatusOf(twice) == 400);
    CHECK(twice.find("Authorization") != std::string::npos);
    CHECK(StatusOf(send("authorization: Bearer a\r\nAUTHORIZATION: Bearer a\r\n")) == 400);
    CHECK(StatusOf(send("Host: other.example\r\n")) == 400);
    const auto post = [&](const std::string& headers) {
        return StatusOf(orch::test::RawExchange(
            api.port(),
            "POST /deployments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/json\r\n" +
                headers + "Connection: close\r\n\r\n{}"
        ));
    };
    CHECK(post("Content-Length: 2\r\n") == 400);  // the contract's "A TOSCA template must be provided"
    CHECK(post("Content-Length: 2\r\nContent-Length: 2\r\n") == 400);
    CHECK(post("Content-Length: 2\r\nContent-Type: text/plain\r\n") == 400);
}

TEST_CASE("X-Forwarded-* and Forwarded count only from trusted proxies", "[e2e][security][headers]") {
    using Catch::Matchers::StartsWith;
    const orch::http::Headers forged = {
        {"X-Forwarded-Host", "evil.example"}, {"X-Forwarded-Proto", "https"}, {"X-Forwarded-Prefix", "/phish"}};
    const orch::http::Headers rfc = {{"Forwarded", "for=192.0.2.1;proto=https;host=paas.example.org"}};
    const orch::http::Headers ssl = {{"X-Forwarded-Ssl", "on"}, {"X-Forwarded-Host", "paas.example.org"}};
    const auto href = [](ApiHarness& api, const orch::http::Headers& headers) {
        return SelfHref(api.Call("GET", "/deployments", "", headers).body);
    };
    {
        ApiHarness api("edge-untrusted");
        CHECK_THAT(href(api, forged), StartsWith(api.base() + "/deployments"));
        CHECK_THAT(href(api, rfc), StartsWith(api.base() + "/deployments"));
        CHECK_THAT(href(api, ssl), StartsWith(api.base() + "/deployments"));
    }
    ApiHarness trusted(
        "edge-trusted",
        std::string(ApiHarness::kLoopbackCallbacks) + "server:\n  trusted_proxies: [127.0.0.1, \"::1\"]\n"
    );
    CHECK_THAT(href(trusted, forged), StartsWith("https://evil.example/phish/deployments"));
    CHECK_THAT(href(trusted, rfc), StartsWith("https://paas.example.org/deployments"));
    CHECK_THAT(href(trusted, ssl), StartsWith("https://paas.example.org/deployments"));
}
