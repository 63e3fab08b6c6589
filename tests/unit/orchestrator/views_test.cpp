#include <common/json.hpp>
#include <orchestrator/api/links.hpp>
#include <orchestrator/api/views.hpp>

#include <catch2/catch.hpp>

#include <chrono>

namespace {

using orch::Json;
using orch::domain::TimePoint;

TimePoint At(std::int64_t unix_seconds, int micros = 0) {
    return TimePoint(std::chrono::duration_cast<TimePoint::duration>(
        std::chrono::seconds(unix_seconds) + std::chrono::microseconds(micros)
    ));
}

std::string Dump(const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The contract's Deployment built as a tree, the way the view was written before it became
// text: the reference the written bytes must equal.
Json ReferenceView(const orch::domain::Deployment& d, const std::string& base) {
    Json j;
    j["uuid"] = d.id;
    j["creationTime"] = orch::domain::FormatContractTime(d.created_at);
    j["updateTime"] = orch::domain::FormatContractTime(d.updated_at);
    if (!d.physical_id.empty()) {
        j["physicalId"] = d.physical_id;
    }
    j["status"] = orch::domain::StatusName(d.status);
    if (!d.status_reason.empty()) {
        j["statusReason"] = d.status_reason;
    }
    j["outputs"] = d.outputs.is_object() ? d.outputs : Json::object();
    j["task"] = orch::domain::TaskName(d.task);
    if (!d.callback.empty()) {
        j["callback"] = d.callback;
    }
    if (!d.user_group.empty()) {
        j["userGroup"] = d.user_group;
    }
    if (!d.cloud_provider_name.empty()) {
        j["cloudProviderName"] = d.cloud_provider_name;
    }
    if (d.cloud_provider_endpoint.is_object()) {
        j["cloudProviderEndpoint"] = d.cloud_provider_endpoint;
    }
    if (d.owner) {
        j["createdBy"] = {{"issuer", d.owner->issuer}, {"subject", d.owner->subject}};
    }
    Json links = Json::array();
    if (!base.empty()) {
        const std::string self = base + "/deployments/" + d.id;
        links.push_back({{"rel", "self"}, {"href", self}});
        links.push_back({{"rel", "resources"}, {"href", self + "/resources?type={type}"}});
        links.push_back({{"rel", "template"}, {"href", self + "/template"}});
    }
    j["links"] = std::move(links);
    return j;
}

}  // namespace

TEST_CASE("contract times are UTC minutes with a +0000 offset", "[orchestrator][views]") {
    CHECK(orch::domain::FormatContractTime(At(0)) == "1970-01-01T00:00+0000");
    CHECK(orch::domain::FormatContractTime(At(1709213879, 999999)) == "2024-02-29T13:37+0000");  // leap day
    CHECK(orch::domain::FormatContractTime(At(946684799, 999999)) == "1999-12-31T23:59+0000");
    CHECK(orch::domain::FormatContractTime(At(-1)) == "1969-12-31T23:59+0000");
    CHECK(orch::domain::FormatContractTime(At(4102444799)) == "2099-12-31T23:59+0000");
}

TEST_CASE("the written deployment view has the bytes of the tree it replaced", "[orchestrator][views]") {
    orch::domain::Deployment full;
    full.id = "11f1e995-2b29-c2d7-a8da-5796ff417769";
    full.created_at = At(1709213879);
    full.updated_at = At(1764158400);
    full.status = orch::domain::Status::kCreateFailed;
    full.status_reason = "line1\nline2\t\"quoted\" \\ \x01\x7f caf\xC3\xA9 bad\xE2\x82 end";
    full.task = orch::domain::Task::kDeployer;
    full.physical_id = "phys/1";
    full.callback = "http://cb/?a=1&b=\"2\"";
    full.user_group = "grp";
    full.owner = orch::domain::Owner{"https://iam.example/", "sub\xFF"};
    full.cloud_provider_name = "provider";
    full.cloud_provider_endpoint = Json{{"cpEndpoint", "https://a/b"}, {"region", nullptr}, {"n", {1, 2.5, true}}};
    full.outputs = Json{{"b", {{"z", 1}, {"a", Json::array({"\xC3\xA9\n"})}}}, {"a", "s\"t"}, {"x", 1e30}};

    orch::domain::Deployment bare;
    bare.id = "00000000-0000-4000-8000-000000000000";
    bare.outputs = Json::array({1, 2});                // not an object: rendered as {}
    bare.cloud_provider_endpoint = Json("notobject");  // not an object: omitted

    orch::domain::Deployment owner_only;
    owner_only.id = "x";
    owner_only.owner = orch::domain::Owner{"iss", ""};

    for (const auto* d : {&full, &bare, &owner_only}) {
        for (const std::string base : {"", "https://h.example:8443/prefix"}) {
            INFO("deployment " << d->id << ", base '" << base << "'");
            CHECK(orch::api::DeploymentViewText(*d, base) == Dump(ReferenceView(*d, base)));
        }
    }
    CHECK(orch::api::DeploymentView(full, "") == Json::parse(Dump(ReferenceView(full, ""))));
}

TEST_CASE("page bodies carry content, navigation links and page numbers", "[orchestrator][views]") {
    const orch::api::PageNav nav{
        "http://h/deployments{?createdBy,userGroup}", "http://h/deployments", 1, 10, 25, "createdAt,desc"};
    const std::string body = orch::api::PageBody(nav, [](orch::JsonWriter& w) { w.Int(1).String("two"); });
    const auto link = [](const std::string& rel, const std::string& href) {
        return Json{{"rel", rel}, {"href", href}};
    };
    const std::string nav_base = "http://h/deployments?page=";
    const Json expected = {
        {"content", {1, "two"}},
        {"links",
         {link("first", nav_base + "0&size=10&sort=createdAt,desc"),
          link("prev", nav_base + "0&size=10&sort=createdAt,desc"),
          link("self", "http://h/deployments{?createdBy,userGroup}"),
          link("next", nav_base + "2&size=10&sort=createdAt,desc"),
          link("last", nav_base + "2&size=10&sort=createdAt,desc")}},
        {"page", {{"size", 10}, {"totalElements", 25}, {"totalPages", 3}, {"number", 1}}}};
    CHECK(body == Dump(expected));

    const orch::api::PageNav empty{"http://h/x?a=b", "http://h/x?a=b", 0, 10, 0, "createdAt,desc"};
    CHECK(
        orch::api::PageBody(empty, [](orch::JsonWriter&) {}) ==
        R"({"content":[],"links":[{"href":"http://h/x?a=b","rel":"self"}],"page":{"number":0,"size":10,"totalElements":0,"totalPages":0}})"
    );
}
