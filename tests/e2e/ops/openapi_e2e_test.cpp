// Real responses of the real binary validate against the schemas of the document it serves at
// GET /openapi.json (validated with the simulators' JSON-schema subset validator).
#include "ops_env.hpp"

#include <catch2/catch.hpp>
#include <sim/json_schema.hpp>

#include <thread>

namespace {

using orch::Json;
using orch::test::ops::OpsApi;

std::string PointerEscape(const std::string& text) {
    std::string out;
    for (const char c : text) {
        out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return out;
}

// The document is OpenAPI 3.0.3, whose schemas say `nullable: true` where JSON Schema (and the
// simulators' validator) says `type: [T, "null"]`; everything else the document uses is read alike.
Json AsJsonSchema(Json node) {
    if (node.is_object()) {
        // Only the keyword (a boolean): a property that happens to be called "nullable" stays.
        if (const auto nullable = node.find("nullable"); nullable != node.end() && nullable->is_boolean()) {
            const bool allows_null = nullable->get<bool>();
            node.erase(nullable);
            if (allows_null && node.contains("type") && node["type"].is_string()) {
                node["type"] = Json::array({node["type"], "null"});
            }
            if (allows_null && node.contains("enum") && node["enum"].is_array()) {
                node["enum"].push_back(nullptr);
            }
        }
        for (auto& [key, child] : node.items()) {
            child = AsJsonSchema(std::move(child));
        }
    } else if (node.is_array()) {
        for (auto& child : node) {
            child = AsJsonSchema(std::move(child));
        }
    }
    return node;
}

class ContractChecker {
   public:
    explicit ContractChecker(Json document) : document_(std::move(document)) {
        REQUIRE(schemas_.Add("openapi.json", AsJsonSchema(document_)));
    }

    // Validates a response of (method, path template) against the document: the status must be
    // listed for the operation and a JSON body must satisfy the listed schema.
    void Check(const std::string& method, const std::string& path_template, const orch::http::ClientResponse& res) {
        INFO(method << " " << path_template << " -> " << res.status << " " << res.body.substr(0, 300));
        const std::string op_pointer = "/paths/" + PointerEscape(path_template) + "/" + method;
        REQUIRE(document_.contains(Json::json_pointer(op_pointer)));
        std::string pointer = op_pointer + "/responses/" + std::to_string(res.status);
        REQUIRE(document_.contains(Json::json_pointer(pointer)));
        if (const auto& response = document_.at(Json::json_pointer(pointer)); response.contains("$ref")) {
            pointer = response.at("$ref").get<std::string>().substr(1);
        }
        const auto& response = document_.at(Json::json_pointer(pointer));
        if (!response.contains("content")) {
            CHECK(res.body.empty());
            return;
        }
        if (response.at("content").contains("application/json")) {
            CHECK(res.Header("Content-Type").rfind("application/json", 0) == 0);
            Validate(pointer + "/content/application~1json/schema", Json::parse(res.body));
        } else {
            CHECK(res.Header("Content-Type").rfind("text/plain", 0) == 0);
        }
    }

    /// Validates against a named component schema (e.g. answers of unknown paths: Error).
    void CheckSchema(const std::string& component, const std::string& body) {
        INFO(component << ": " << body.substr(0, 300));
        Validate("/components/schemas/" + component, Json::parse(body));
    }

    /// Whether `instance` satisfies a named component schema.
    bool Accepts(const std::string& component, const Json& instance) {
        const std::string name = "check-" + std::to_string(++checks_) + ".json";
        REQUIRE(schemas_.Add(name, Json{{"$ref", "openapi.json#/components/schemas/" + component}}));
        const auto violations = schemas_.Validate(name, instance);
        REQUIRE(violations);
        return violations->empty();
    }

   private:
    void Validate(const std::string& schema_pointer, const Json& instance) {
        const std::string name = "check-" + std::to_string(++checks_) + ".json";
        REQUIRE(schemas_.Add(name, Json{{"$ref", "openapi.json#" + schema_pointer}}));
        const auto violations = schemas_.Validate(name, instance);
        REQUIRE(violations);
        INFO(orch::sim::DescribeViolations(*violations));
        CHECK(violations->empty());
    }

    Json document_;
    orch::sim::SchemaSet schemas_;
    int checks_ = 0;
};

}  // namespace

TEST_CASE("the checker reads OpenAPI 3.0 nullable as JSON Schema's null type", "[e2e][openapi]") {
    ContractChecker contract(Json::parse(R"({"openapi": "3.0.3", "paths": {}, "components": {"schemas": {
        "Nullable": {"type": "string", "nullable": true},
        "NullableEnum": {"type": "string", "enum": ["a"], "nullable": true},
        "Plain": {"type": "string"}}}})"));
    CHECK(contract.Accepts("Nullable", nullptr));
    CHECK(contract.Accepts("Nullable", "x"));
    CHECK_FALSE(contract.Accepts("Nullable", 1));
    CHECK(contract.Accepts("NullableEnum", nullptr));
    CHECK_FALSE(contract.Accepts("NullableEnum", "b"));
    CHECK_FALSE(contract.Accepts("Plain", nullptr));
}

TEST_CASE("responses of real requests validate against the served OpenAPI document", "[e2e][openapi]") {
    OpsApi api;
    const auto served = api.Call("GET", "/openapi.json", "", {});
    REQUIRE(served.status == 200);
    ContractChecker contract(Json::parse(served.body));
    contract.Check("get", "/openapi.json", served);

    contract.Check("get", "/", api.Call("GET", "/", "", {}));
    contract.Check("get", "/info", api.Call("GET", "/info", "", {}));
    contract.Check("get", "/healthz", api.Call("GET", "/healthz", "", {}));
    contract.Check("get", "/readyz", api.Call("GET", "/readyz", "", {}));
    contract.Check("get", "/metrics", api.Call("GET", "/metrics", "", {}));
    contract.Check("get", "/configuration", api.Call("GET", "/configuration", "", {}));

    const auto created = api.Create();
    REQUIRE(created.status == 201);
    contract.Check("post", "/deployments", created);
    const std::string id = Json::parse(created.body)["uuid"];
    contract.Check("get", "/deployments", api.Call("GET", "/deployments"));
    contract.Check("get", "/deployments/{deploymentId}", api.Call("GET", "/deployments/" + id));
    const auto resources = api.Call("GET", "/deployments/" + id + "/resources");
    contract.Check("get", "/deployments/{deploymentId}/resources", resources);
    const auto filtered = api.Call("GET", "/deployments/" + id + "/resources/filter?type=tosca.nodes.Root");
    contract.Check("get", "/deployments/{deploymentId}/resources/filter", filtered);
    const Json content = Json::parse(resources.body)["content"];
    REQUIRE_FALSE(content.empty());
    const std::string rid = content[0]["uuid"];
    contract.Check(
        "get",
        "/deployments/{deploymentId}/resources/{resourceId}",
        api.Call("GET", "/deployments/" + id + "/resources/" + rid)
    );
    contract.Check("get", "/deployments/{deploymentId}/template", api.Call("GET", "/deployments/" + id + "/template"));
    contract.Check("get", "/deployments/{deploymentId}/attempts", api.Call("GET", "/deployments/" + id + "/attempts"));
    contract.Check(
        "get",
        "/deployments/{deploymentId}/attempts",
        api.Call("GET", "/deployments/" + orch::RandomUuid() + "/attempts")
    );

    // Errors: 400 (bad body, missing parameter), 404 (unknown deployment), 413 (body too large),
    // 415, 405 and unknown paths (the generic Error schema).
    contract.Check("post", "/deployments", api.Call("POST", "/deployments", "{}"));
    contract.Check("post", "/deployments", api.Call("POST", "/deployments", "{not json"));
    contract.Check("post", "/deployments", api.Call("POST", "/deployments", "x", {{"Content-Type", "text/plain"}}));
    contract.Check(
        "get",
        "/deployments/{deploymentId}/resources/filter",
        api.Call("GET", "/deployments/" + id + "/resources/filter")
    );
    contract.Check("get", "/deployments/{deploymentId}", api.Call("GET", "/deployments/" + orch::RandomUuid()));
    const auto too_large = api.Call("POST", "/deployments", std::string(11u << 20, ' '));
    REQUIRE(too_large.status == 413);
    contract.Check("post", "/deployments", too_large);
    const auto wrong_method = api.Call("DELETE", "/info", "", {});
    REQUIRE(wrong_method.status == 405);
    contract.CheckSchema("Error", wrong_method.body);
    const auto unknown = api.Call("GET", "/no/such/path", "", {});
    REQUIRE(unknown.status == 404);
    contract.CheckSchema("Error", unknown.body);
}
