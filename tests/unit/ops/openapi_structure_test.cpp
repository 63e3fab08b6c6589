// docs/openapi.yaml (served at /openapi.json) is valid OpenAPI 3.0.3 as it declares: a structural
// validator for the parts of the specification the document uses. Schema objects may use only
// the 3.0.3 keywords with their 3.0.3 value types (no 3.1 type arrays, `const`, `examples`,
// numeric `exclusiveMinimum`, ...), every $ref resolves, every operation has responses, and path
// templates and path parameters agree. Debian bookworm has no python3-openapi-spec-validator, so
// the rules are written here (OpenAPI 3.0.3 §4.7).
#include <orchestrator/ops/openapi.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using orch::Json;

enum class Kind { kString, kBoolean, kNumber, kCount, kSchema, kSchemaList, kSchemaMap, kAny, kStrings, kObject };

// OpenAPI 3.0.3 §4.7.24: the Schema Object's keywords and what their values must be.
const std::map<std::string, Kind>& SchemaKeywords() {
    static const std::map<std::string, Kind> keywords{
        {"title", Kind::kString},         {"multipleOf", Kind::kNumber},
        {"maximum", Kind::kNumber},       {"exclusiveMaximum", Kind::kBoolean},
        {"minimum", Kind::kNumber},       {"exclusiveMinimum", Kind::kBoolean},
        {"maxLength", Kind::kCount},      {"minLength", Kind::kCount},
        {"pattern", Kind::kString},       {"maxItems", Kind::kCount},
        {"minItems", Kind::kCount},       {"uniqueItems", Kind::kBoolean},
        {"maxProperties", Kind::kCount},  {"minProperties", Kind::kCount},
        {"required", Kind::kStrings},     {"enum", Kind::kAny},
        {"type", Kind::kString},          {"allOf", Kind::kSchemaList},
        {"oneOf", Kind::kSchemaList},     {"anyOf", Kind::kSchemaList},
        {"not", Kind::kSchema},           {"items", Kind::kSchema},
        {"properties", Kind::kSchemaMap}, {"additionalProperties", Kind::kAny},
        {"description", Kind::kString},   {"format", Kind::kString},
        {"default", Kind::kAny},          {"nullable", Kind::kBoolean},
        {"discriminator", Kind::kObject}, {"readOnly", Kind::kBoolean},
        {"writeOnly", Kind::kBoolean},    {"xml", Kind::kObject},
        {"externalDocs", Kind::kObject},  {"example", Kind::kAny},
        {"deprecated", Kind::kBoolean},
    };
    return keywords;
}

const std::set<std::string> kTypes{"integer", "number", "string", "boolean", "array", "object"};  // no "null"

// A member of an object, or null: documents under test may hold anything anywhere, and the
// reference stays valid for range-for loops (nlohmann's value() returns a copy).
const Json& Member(const Json& node, const std::string& key) {
    static const Json kNull;
    return node.is_object() && node.contains(key) ? node.at(key) : kNull;
}

const Json& Entries(const Json& node, const std::string& key) {
    static const Json kEmpty = Json::object();
    const Json& member = Member(node, key);
    return member.is_object() ? member : kEmpty;
}

const Json& Parameters(const Json& node) {
    static const Json kNone = Json::array();
    return Member(node, "parameters").is_null() ? kNone : Member(node, "parameters");
}

std::string Text(const Json& node, const std::string& key) {
    const Json& member = Member(node, key);
    return member.is_string() ? member.get<std::string>() : std::string();
}

const std::set<std::string> kMethods{"get", "put", "post", "delete", "options", "head", "patch", "trace"};

class Validator {
   public:
    explicit Validator(const Json& document) : document_(document) {}

    std::vector<std::string> Run() {
        CheckRoot();
        return std::move(errors_);
    }

   private:
    void Fail(const std::string& where, const std::string& what) { errors_.push_back(where + ": " + what); }

    static bool IsExtension(const std::string& key) { return key.rfind("x-", 0) == 0; }

    // Follows $ref (chains included) to the object it names; nullptr (and an error) if it does not resolve.
    const Json* Resolve(const Json& node, const std::string& where) {
        const Json* current = &node;
        for (int hops = 0; current->is_object() && current->contains("$ref"); ++hops) {
            const auto& ref = current->at("$ref");
            if (!ref.is_string() || ref.get<std::string>().rfind("#/", 0) != 0 || hops > 16) {
                Fail(where, "$ref must be a local '#/...' reference");
                return nullptr;
            }
            if (current->size() != 1) {
                Fail(where, "$ref has siblings (ignored in OpenAPI 3.0)");
            }
            const Json::json_pointer pointer(ref.get<std::string>().substr(1));
            if (!document_.contains(pointer)) {
                Fail(where, "$ref " + ref.get<std::string>() + " does not resolve");
                return nullptr;
            }
            current = &document_.at(pointer);
        }
        return current;
    }

    void CheckRoot() {
        if (Text(document_, "openapi") != "3.0.3") {
            Fail("#/openapi", "must be \"3.0.3\"");
        }
        for (const char* key : {"webhooks", "jsonSchemaDialect"}) {
            if (document_.contains(key)) {
                Fail(std::string("#/") + key, "is OpenAPI 3.1 only");
            }
        }
        const Json info = Member(document_, "info");
        if (!info.is_object() || !Member(info, "title").is_string() || !Member(info, "version").is_string()) {
            Fail("#/info", "needs string title and version");
        }
        const Json& components = Entries(document_, "components");
        for (const auto& [name, schema] : Entries(components, "schemas").items()) {
            CheckSchema(schema, "#/components/schemas/" + name);
        }
        for (const auto& [name, parameter] : Entries(components, "parameters").items()) {
            CheckParameter(parameter, "#/components/parameters/" + name);
        }
        for (const auto& [name, response] : Entries(components, "responses").items()) {
            CheckResponse(response, "#/components/responses/" + name);
        }
        if (components.contains("pathItems")) {
            Fail("#/components/pathItems", "is OpenAPI 3.1 only");
        }
        const auto paths = document_.find("paths");
        if (paths == document_.end() || !paths->is_object() || paths->empty()) {
            Fail("#/paths", "must be a non-empty object");
            return;
        }
        for (const auto& [path, item] : paths->items()) {
            if (!item.is_object()) {
                Fail("#/paths/" + path, "a path item must be an object");
                continue;
            }
            CheckPathItem(path, item);
        }
    }

    void CheckPathItem(const std::string& path, const Json& item) {
        const std::string where = "#/paths/" + path;
        if (path.empty() || path.front() != '/') {
            Fail(where, "path must start with '/'");
        }
        std::set<std::string> templated;
        const std::regex braces("\\{([^}/]+)\\}");
        for (auto it = std::sregex_iterator(path.begin(), path.end(), braces); it != std::sregex_iterator(); ++it) {
            templated.insert((*it)[1]);
        }
        const auto shared = PathParameters(Parameters(item), where + "/parameters");
        for (const auto& [method, operation] : item.items()) {
            if (method == "parameters" || method == "summary" || method == "description" || method == "servers" ||
                IsExtension(method)) {
                continue;
            }
            if (kMethods.count(method) == 0) {
                Fail(where, "unknown key '" + method + "'");
                continue;
            }
            const std::string op_where = where + "/" + method;
            if (!operation.is_object()) {
                Fail(op_where, "an operation must be an object");
                continue;
            }
            auto declared = shared;
            declared.merge(PathParameters(Parameters(operation), op_where + "/parameters"));
            if (declared != templated) {
                Fail(op_where, "path parameters declared do not match the template's {names}");
            }
            CheckOperation(operation, op_where);
        }
    }

    // Checks a parameter list; returns the names of its path parameters.
    std::set<std::string> PathParameters(const Json& parameters, const std::string& where) {
        std::set<std::string> names;
        if (!parameters.is_array()) {
            Fail(where, "must be an array");
            return names;
        }
        for (std::size_t i = 0; i < parameters.size(); ++i) {
            const Json* parameter = Resolve(parameters[i], where + "/" + std::to_string(i));
            if (parameter != nullptr && Text(*parameter, "in") == "path") {
                names.insert(Text(*parameter, "name"));
            }
            CheckParameter(parameters[i], where + "/" + std::to_string(i));
        }
        return names;
    }

    void CheckParameter(const Json& node, const std::string& where) {
        const Json* parameter = Resolve(node, where);
        if (parameter == nullptr) {
            return;
        }
        static const std::set<std::string> kIn{"query", "header", "path", "cookie"};
        if (!Member(*parameter, "name").is_string() || kIn.count(Text(*parameter, "in")) == 0) {
            Fail(where, "a parameter needs a name and in: query|header|path|cookie");
        }
        if (Text(*parameter, "in") == "path" && Member(*parameter, "required") != true) {
            Fail(where, "path parameters must be required: true");
        }
        if (parameter->contains("schema") == parameter->contains("content")) {
            Fail(where, "a parameter has exactly one of schema and content");
        }
        if (parameter->contains("schema")) {
            CheckSchema(parameter->at("schema"), where + "/schema");
        }
        CheckContent(*parameter, where);
    }

    void CheckOperation(const Json& operation, const std::string& where) {
        if (const auto body = operation.find("requestBody"); body != operation.end()) {
            if (const Json* resolved = Resolve(*body, where + "/requestBody")) {
                CheckContent(*resolved, where + "/requestBody");
            }
        }
        const auto responses = operation.find("responses");
        if (responses == operation.end() || !responses->is_object() || responses->empty()) {
            Fail(where, "an operation needs at least one response");
            return;
        }
        const std::regex code("[1-5]([0-9]{2}|XX)");
        for (const auto& [status, response] : responses->items()) {
            if (status != "default" && !IsExtension(status) && !std::regex_match(status, code)) {
                Fail(where + "/responses/" + status, "not a status code, range or default");
            }
            CheckResponse(response, where + "/responses/" + status);
        }
    }

    void CheckResponse(const Json& node, const std::string& where) {
        const Json* response = Resolve(node, where);
        if (response == nullptr) {
            return;
        }
        if (!Member(*response, "description").is_string()) {
            Fail(where, "a response needs a description");
        }
        for (const auto& [name, header] : Entries(*response, "headers").items()) {
            if (const Json* resolved = Resolve(header, where + "/headers/" + name);
                resolved && resolved->contains("schema")) {
                CheckSchema(resolved->at("schema"), where + "/headers/" + name + "/schema");
            }
        }
        CheckContent(*response, where);
    }

    void CheckContent(const Json& holder, const std::string& where) {
        for (const auto& [media, object] : Entries(holder, "content").items()) {
            if (object.contains("schema")) {
                CheckSchema(object.at("schema"), where + "/content/" + media + "/schema");
            }
        }
    }

    void CheckSchema(const Json& schema, const std::string& where) {
        if (!schema.is_object()) {
            Fail(where, "a schema must be an object (3.0.3 has no boolean schemas)");
            return;
        }
        if (schema.contains("$ref")) {
            Resolve(schema, where);  // the target is checked where it is defined
            return;
        }
        for (const auto& [key, value] : schema.items()) {
            if (IsExtension(key)) {
                continue;
            }
            const auto keyword = SchemaKeywords().find(key);
            if (keyword == SchemaKeywords().end()) {
                Fail(where, "'" + key + "' is not an OpenAPI 3.0.3 schema keyword");
                continue;
            }
            CheckValue(key, keyword->second, value, where + "/" + key);
        }
        if (Text(schema, "type") == "array" && !schema.contains("items")) {
            Fail(where, "type: array needs items");
        }
    }

    void CheckValue(const std::string& key, Kind kind, const Json& value, const std::string& where) {
        switch (kind) {
            case Kind::kString:
                if (!value.is_string() || (key == "type" && kTypes.count(value.get<std::string>()) == 0)) {
                    Fail(
                        where,
                        key == "type" ? "must be one of the six 3.0.3 type names (one string)" : "must be a string"
                    );
                }
                break;
            case Kind::kBoolean:
                if (!value.is_boolean()) {
                    Fail(where, "must be a boolean in 3.0.3");
                }
                break;
            case Kind::kNumber:
                if (!value.is_number()) {
                    Fail(where, "must be a number");
                }
                break;
            case Kind::kCount:
                if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
                    Fail(where, "must be a non-negative integer");
                }
                break;
            case Kind::kStrings:
                if (!value.is_array() || value.empty() ||
                    std::any_of(value.begin(), value.end(), [](const Json& v) { return !v.is_string(); })) {
                    Fail(where, "must be a non-empty list of strings");
                }
                break;
            case Kind::kSchema:
                CheckSchema(value, where);
                break;
            case Kind::kSchemaList:
                if (!value.is_array() || value.empty()) {
                    Fail(where, "must be a non-empty list of schemas");
                    break;
                }
                for (std::size_t i = 0; i < value.size(); ++i) {
                    CheckSchema(value[i], where + "/" + std::to_string(i));
                }
                break;
            case Kind::kSchemaMap:
                if (!value.is_object()) {
                    Fail(where, "must map names to schemas");
                    break;
                }
                for (const auto& [name, schema] : value.items()) {
                    CheckSchema(schema, where + "/" + name);
                }
                break;
            case Kind::kObject:
                if (!value.is_object()) {
                    Fail(where, "must be an object");
                }
                break;
            case Kind::kAny:
                if (key == "enum" && (!value.is_array() || value.empty())) {
                    Fail(where, "must be a non-empty list");
                } else if (key == "additionalProperties" && !value.is_boolean()) {
                    CheckSchema(value, where);
                }
                break;
        }
    }

    const Json& document_;
    std::vector<std::string> errors_;
};

std::string Listed(const std::vector<std::string>& errors) {
    std::string out;
    for (const auto& error : errors) {
        out += error + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("the served OpenAPI document is valid OpenAPI 3.0.3", "[openapi]") {
    const auto& document = orch::ops::OpenApiDocument();
    REQUIRE(document);
    const auto errors = Validator(*document).Run();
    INFO(Listed(errors));
    CHECK(errors.empty());
}

TEST_CASE("the 3.0.3 validator refuses 3.1 constructs and broken structure", "[openapi]") {
    // Each case alone in a minimal document, so the validator is shown to see it.
    const Json base = Json::parse(R"({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/d/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/S"}}}}}}}},
        "components": {"schemas": {"S": {"type": "object", "nullable": true,
            "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "example": 1}}}}}
    })");
    REQUIRE(Validator(base).Run().empty());
    const auto errors_with = [&](const std::string& pointer, const Json& value) {
        Json document = base;
        document[Json::json_pointer(pointer)] = value;
        return Validator(document).Run().size();
    };
    const std::string n = "/components/schemas/S/properties/n";
    CHECK(errors_with(n + "/type", Json::array({"integer", "null"})) == 1);
    CHECK(errors_with(n + "/type", "null") == 1);
    CHECK(errors_with(n + "/exclusiveMinimum", 0) == 1);
    CHECK(errors_with(n + "/const", 1) == 1);
    CHECK(errors_with(n + "/examples", Json::array({1})) == 1);
    CHECK(errors_with(n + "/type", "array") == 1);  // without items
    CHECK(errors_with("/components/schemas/S/properties/b", true) == 1);
    CHECK(errors_with("/openapi", "3.1.0") == 1);
    CHECK(errors_with("/paths/~1d~1{id}/get/responses", Json::object()) == 1);
    CHECK(errors_with("/paths/~1d~1{id}/get/responses/200/content/application~1json/schema/$ref", "#/nope") == 1);
    CHECK(errors_with("/paths/~1d~1{id}/get/parameters/0/name", "other") == 1);
    CHECK(errors_with("/paths/~1d~1{id}/get/parameters/0/required", false) == 1);
}
