#include "sim/json_schema.hpp"

#include "json_values.hpp"

#include <cmath>
#include <regex>
#include <set>
#include <utility>

namespace orch::sim {
namespace {

using namespace schema_detail;  // NOLINT(google-build-using-namespace): this file's own helpers

// std::regex matches recursively; very long subjects could exhaust the stack, and no schema
// field with a pattern (ids, names) is legitimately this long.
constexpr std::size_t kMaxPatternSubject = 4096;
// Guards against $ref cycles that never descend into the instance.
constexpr int kMaxDepth = 256;

}  // namespace

struct SchemaSet::Impl {
    std::map<std::string, Json> documents;
    std::map<std::string, std::regex> regexes;

    Status CompilePatterns(const Json& node);
    Status CheckRefs(const std::string& doc_name, const Json& node) const;
    // Resolves `ref` relative to the document `root`; the pair is (schema, its document root).
    std::pair<const Json*, const Json*> Resolve(const std::string& ref, const Json& root) const;
    const std::regex* Regex(const std::string& pattern) const {
        const auto it = regexes.find(pattern);
        return it == regexes.end() ? nullptr : &it->second;
    }
};

Status SchemaSet::Impl::CompilePatterns(const Json& node) {
    if (node.is_array()) {
        for (const auto& item : node) {
            ORCH_RETURN_IF_ERROR(CompilePatterns(item));
        }
        return Ok();
    }
    if (!node.is_object()) {
        return Ok();
    }
    std::vector<std::string> patterns;
    if (const auto it = node.find("pattern"); it != node.end() && it->is_string()) {
        patterns.push_back(it->get<std::string>());
    }
    if (const auto it = node.find("patternProperties"); it != node.end() && it->is_object()) {
        for (const auto& [key, unused] : it->items()) {
            patterns.push_back(key);
        }
    }
    for (const auto& pattern : patterns) {
        if (regexes.count(pattern) != 0) {
            continue;
        }
        try {
            regexes.emplace(pattern, std::regex(pattern, std::regex::ECMAScript | std::regex::optimize));
        } catch (const std::regex_error& e) {
            return Error::InvalidArgument("schema pattern '" + pattern + "' does not compile: " + e.what());
        }
    }
    for (const auto& [key, child] : node.items()) {
        ORCH_RETURN_IF_ERROR(CompilePatterns(child));
    }
    return Ok();
}

std::pair<const Json*, const Json*> SchemaSet::Impl::Resolve(const std::string& ref, const Json& root) const {
    const auto hash = ref.find('#');
    std::string file = ref.substr(0, hash);
    const std::string fragment = hash == std::string::npos ? std::string() : ref.substr(hash + 1);
    const Json* doc = &root;
    if (!file.empty()) {
        if (file.rfind("./", 0) == 0) {
            file = file.substr(2);
        }
        const auto it = documents.find(file);
        if (it == documents.end()) {
            return {nullptr, nullptr};
        }
        doc = &it->second;
    }
    const Json* target = FollowPointer(*doc, fragment);
    return {target, doc};
}

Status SchemaSet::Impl::CheckRefs(const std::string& doc_name, const Json& node) const {
    if (node.is_array()) {
        for (const auto& item : node) {
            ORCH_RETURN_IF_ERROR(CheckRefs(doc_name, item));
        }
        return Ok();
    }
    if (!node.is_object()) {
        return Ok();
    }
    if (const auto it = node.find("$ref"); it != node.end() && it->is_string()) {
        if (Resolve(it->get<std::string>(), documents.at(doc_name)).first == nullptr) {
            return Error::NotFound("schema " + doc_name + ": $ref '" + it->get<std::string>() + "' does not resolve");
        }
    }
    for (const auto& [key, child] : node.items()) {
        ORCH_RETURN_IF_ERROR(CheckRefs(doc_name, child));
    }
    return Ok();
}

namespace {

// Walks one instance against one schema, collecting violations up to a limit.
class Walker {
   public:
    Walker(const SchemaSet::Impl& set, std::size_t limit) : set_(set), limit_(limit) {}

    void Check(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth);
    std::vector<SchemaViolation> TakeViolations() { return std::move(violations_); }
    bool Full() const { return violations_.size() >= limit_; }
    bool Clean() const { return violations_.empty(); }

   private:
    void Add(const std::string& path, std::string message) {
        if (!Full()) {
            violations_.push_back({path, std::move(message)});
        }
    }
    bool Matches(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth) const {
        Walker probe(set_, 1);
        probe.Check(schema, root, value, path, depth);
        return probe.Clean();
    }

    void CheckType(const Json& schema, const Json& value, const std::string& path);
    void CheckEnum(const Json& schema, const Json& value, const std::string& path);
    void CheckNumber(const Json& schema, const Json& value, const std::string& path);
    void CheckString(const Json& schema, const Json& value, const std::string& path);
    void CheckObject(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth);
    void CheckAdditional(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth);
    void CheckArray(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth);
    void CheckCombinators(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth);

    const SchemaSet::Impl& set_;
    std::size_t limit_;
    std::vector<SchemaViolation> violations_;
};

void Walker::Check(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth) {
    if (Full() || !schema.is_object()) {
        if (schema.is_boolean() && !schema.get<bool>()) {
            Add(path, "no value is allowed here");
        }
        return;
    }
    if (depth > kMaxDepth) {
        Add(path, "schema nesting too deep (cyclic $ref?)");
        return;
    }
    // Draft-04/07: a $ref replaces every sibling keyword.
    if (const auto ref = schema.find("$ref"); ref != schema.end() && ref->is_string()) {
        const auto [target, target_root] = set_.Resolve(ref->get<std::string>(), root);
        if (target == nullptr) {
            Add(path, "schema error: $ref '" + ref->get<std::string>() + "' does not resolve");
            return;
        }
        Check(*target, *target_root, value, path, depth + 1);
        return;
    }
    CheckType(schema, value, path);
    if (Full()) {
        return;
    }
    CheckEnum(schema, value, path);
    CheckNumber(schema, value, path);
    CheckString(schema, value, path);
    CheckObject(schema, root, value, path, depth);
    CheckArray(schema, root, value, path, depth);
    CheckCombinators(schema, root, value, path, depth);
}

void Walker::CheckType(const Json& schema, const Json& value, const std::string& path) {
    const auto it = schema.find("type");
    if (it == schema.end()) {
        return;
    }
    if (it->is_string()) {
        if (!TypeMatches(it->get<std::string>(), value)) {
            Add(path, "expected " + it->get<std::string>() + ", got " + TypeName(value));
        }
        return;
    }
    if (!it->is_array()) {
        return;
    }
    std::string names;
    for (const auto& t : *it) {
        if (t.is_string() && TypeMatches(t.get<std::string>(), value)) {
            return;
        }
        names += (names.empty() ? "" : " or ") + (t.is_string() ? t.get<std::string>() : t.dump());
    }
    Add(path, "expected " + names + ", got " + TypeName(value));
}

void Walker::CheckEnum(const Json& schema, const Json& value, const std::string& path) {
    if (const auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
        for (const auto& allowed : *it) {
            if (allowed == value) {
                return;
            }
        }
        Add(path, "value " + Abbreviate(value) + " is not one of " + Abbreviate(*it));
    }
    if (const auto it = schema.find("const"); it != schema.end() && *it != value) {
        Add(path, "value must be " + Abbreviate(*it));
    }
}

void Walker::CheckNumber(const Json& schema, const Json& value, const std::string& path) {
    if (!value.is_number()) {
        return;
    }
    const double v = value.get<double>();
    if (const auto it = schema.find("minimum"); it != schema.end() && it->is_number()) {
        const auto ex = schema.find("exclusiveMinimum");
        const bool exclusive = ex != schema.end() && ex->is_boolean() && ex->get<bool>();
        const double m = it->get<double>();
        if (exclusive ? v <= m : v < m) {
            Add(path, "must be " + std::string(exclusive ? "greater than " : "at least ") + it->dump());
        }
    }
    if (const auto it = schema.find("maximum"); it != schema.end() && it->is_number()) {
        const auto ex = schema.find("exclusiveMaximum");
        const bool exclusive = ex != schema.end() && ex->is_boolean() && ex->get<bool>();
        const double m = it->get<double>();
        if (exclusive ? v >= m : v > m) {
            Add(path, "must be " + std::string(exclusive ? "less than " : "at most ") + it->dump());
        }
    }
    // Draft-06+ numeric forms of the exclusive bounds.
    if (const auto it = schema.find("exclusiveMinimum");
        it != schema.end() && it->is_number() && v <= it->get<double>()) {
        Add(path, "must be greater than " + it->dump());
    }
    if (const auto it = schema.find("exclusiveMaximum");
        it != schema.end() && it->is_number() && v >= it->get<double>()) {
        Add(path, "must be less than " + it->dump());
    }
}

void Walker::CheckString(const Json& schema, const Json& value, const std::string& path) {
    if (!value.is_string()) {
        return;
    }
    const auto& text = value.get_ref<const std::string&>();
    const std::size_t length = Utf8Length(text);
    if (const auto it = schema.find("minLength"); it != schema.end() && it->is_number_integer() &&
                                                  it->get<std::int64_t>() >= 0 && length < it->get<std::size_t>()) {
        Add(path, "must be at least " + it->dump() + " characters long");
    }
    if (const auto it = schema.find("maxLength"); it != schema.end() && it->is_number_integer() &&
                                                  it->get<std::int64_t>() >= 0 && length > it->get<std::size_t>()) {
        Add(path, "must be at most " + it->dump() + " characters long");
    }
    if (const auto it = schema.find("pattern"); it != schema.end() && it->is_string()) {
        const std::regex* re = set_.Regex(it->get<std::string>());
        if (text.size() > kMaxPatternSubject) {
            Add(path, "is too long to be checked against its pattern");
        } else if (re != nullptr && !std::regex_search(text, *re)) {
            Add(path, "value " + Abbreviate(value) + " does not match pattern " + it->get<std::string>());
        }
    }
}

void Walker::CheckObject(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth) {
    if (!value.is_object()) {
        return;
    }
    if (const auto it = schema.find("required"); it != schema.end() && it->is_array()) {
        for (const auto& name : *it) {
            if (name.is_string() && !value.contains(name.get<std::string>())) {
                Add(path, "missing required field \"" + name.get<std::string>() + "\"");
            }
        }
    }
    if (const auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
        for (const auto& [key, child] : value.items()) {
            if (const auto sub = props->find(key); sub != props->end()) {
                Check(*sub, root, child, path + "/" + EscapePointerToken(key), depth + 1);
            }
        }
    }
    if (const auto pats = schema.find("patternProperties"); pats != schema.end() && pats->is_object()) {
        for (const auto& [pattern, sub] : pats->items()) {
            const std::regex* re = set_.Regex(pattern);
            for (const auto& [key, child] : value.items()) {
                if (re != nullptr && key.size() <= kMaxPatternSubject && std::regex_search(key, *re)) {
                    Check(sub, root, child, path + "/" + EscapePointerToken(key), depth + 1);
                }
            }
        }
    }
    CheckAdditional(schema, root, value, path, depth);
}

void Walker::CheckAdditional(
    const Json& schema, const Json& root, const Json& value, const std::string& path, int depth
) {
    const auto extra = schema.find("additionalProperties");
    if (extra == schema.end() || (extra->is_boolean() && extra->get<bool>())) {
        return;
    }
    const auto props = schema.find("properties");
    const auto pats = schema.find("patternProperties");
    for (const auto& [key, child] : value.items()) {
        if (props != schema.end() && props->is_object() && props->contains(key)) {
            continue;
        }
        bool by_pattern = false;
        if (pats != schema.end() && pats->is_object()) {
            for (const auto& [pattern, unused] : pats->items()) {
                const std::regex* re = set_.Regex(pattern);
                by_pattern = by_pattern || (re != nullptr && std::regex_search(key, *re));
            }
        }
        if (by_pattern) {
            continue;
        }
        const std::string child_path = path + "/" + EscapePointerToken(key);
        if (extra->is_boolean()) {
            Add(child_path, "unknown field \"" + key + "\"");
        } else {
            Check(*extra, root, child, child_path, depth + 1);
        }
    }
}

void Walker::CheckArray(const Json& schema, const Json& root, const Json& value, const std::string& path, int depth) {
    if (!value.is_array()) {
        return;
    }
    if (const auto it = schema.find("minItems"); it != schema.end() && it->is_number_integer() &&
                                                 it->get<std::int64_t>() >= 0 &&
                                                 value.size() < it->get<std::size_t>()) {
        Add(path, "must have at least " + it->dump() + " items");
    }
    if (const auto it = schema.find("maxItems"); it != schema.end() && it->is_number_integer() &&
                                                 it->get<std::int64_t>() >= 0 &&
                                                 value.size() > it->get<std::size_t>()) {
        Add(path, "must have at most " + it->dump() + " items");
    }
    if (const auto it = schema.find("uniqueItems"); it != schema.end() && it->is_boolean() && it->get<bool>()) {
        std::set<Json> seen;
        for (const auto& item : value) {
            if (!seen.insert(item).second) {
                Add(path, "items must be unique; " + Abbreviate(item) + " repeats");
                break;
            }
        }
    }
    const auto items = schema.find("items");
    if (items == schema.end()) {
        return;
    }
    if (items->is_object() || items->is_boolean()) {
        for (std::size_t i = 0; i < value.size() && !Full(); ++i) {
            Check(*items, root, value[i], path + "/" + std::to_string(i), depth + 1);
        }
        return;
    }
    if (!items->is_array()) {
        return;
    }
    const auto extra = schema.find("additionalItems");
    for (std::size_t i = 0; i < value.size() && !Full(); ++i) {
        const std::string item_path = path + "/" + std::to_string(i);
        if (i < items->size()) {
            Check((*items)[i], root, value[i], item_path, depth + 1);
        } else if (extra != schema.end() && extra->is_boolean() && !extra->get<bool>()) {
            Add(item_path, "at most " + std::to_string(items->size()) + " items are allowed");
            break;
        } else if (extra != schema.end() && extra->is_object()) {
            Check(*extra, root, value[i], item_path, depth + 1);
        }
    }
}

void Walker::CheckCombinators(
    const Json& schema, const Json& root, const Json& value, const std::string& path, int depth
) {
    if (const auto it = schema.find("allOf"); it != schema.end() && it->is_array()) {
        for (const auto& sub : *it) {
            Check(sub, root, value, path, depth + 1);
        }
    }
    if (const auto it = schema.find("anyOf"); it != schema.end() && it->is_array()) {
        bool any = false;
        for (const auto& sub : *it) {
            any = any || Matches(sub, root, value, path, depth + 1);
        }
        if (!any) {
            Add(path, "matches none of the allowed forms (anyOf)");
        }
    }
    if (const auto it = schema.find("oneOf"); it != schema.end() && it->is_array()) {
        std::size_t matching = 0;
        std::string types;
        for (const auto& sub : *it) {
            matching += Matches(sub, root, value, path, depth + 1) ? 1 : 0;
            if (sub.is_object() && sub.contains("type")) {
                const Json& t = sub["type"];
                types += (types.empty() ? "" : " or ") + (t.is_string() ? t.get<std::string>() : t.dump());
            }
        }
        if (matching == 0) {
            Add(path,
                types.empty() ? "matches none of the allowed forms (oneOf)"
                              : "expected " + types + ", got " + TypeName(value));
        } else if (matching > 1) {
            Add(path, "matches more than one of the allowed forms (oneOf)");
        }
    }
    if (const auto it = schema.find("not"); it != schema.end() && it->is_object()) {
        if (Matches(*it, root, value, path, depth + 1)) {
            Add(path, "matches a form that is not allowed: " + Abbreviate(*it));
        }
    }
}

}  // namespace

SchemaSet::SchemaSet() : impl_(std::make_unique<Impl>()) {}
SchemaSet::~SchemaSet() = default;
SchemaSet::SchemaSet(SchemaSet&&) noexcept = default;
SchemaSet& SchemaSet::operator=(SchemaSet&&) noexcept = default;

Status SchemaSet::Add(const std::string& name, Json document) {
    if (!document.is_object()) {
        return Error::InvalidArgument("schema " + name + " is not a JSON object");
    }
    ORCH_RETURN_IF_ERROR(impl_->CompilePatterns(document));
    impl_->documents[name] = std::move(document);
    return Ok();
}

Status SchemaSet::AddText(const std::string& name, std::string_view text) {
    auto parsed = ParseJson(text, 256);
    if (!parsed) {
        return Error::InvalidArgument("schema " + name + ": " + parsed.error().message);
    }
    return Add(name, std::move(*parsed));
}

bool SchemaSet::Has(const std::string& name) const {
    return impl_->documents.count(name) != 0;
}

std::vector<std::string> SchemaSet::Names() const {
    std::vector<std::string> names;
    for (const auto& [name, unused] : impl_->documents) {
        names.push_back(name);
    }
    return names;
}

Status SchemaSet::CheckReferences() const {
    for (const auto& [name, doc] : impl_->documents) {
        ORCH_RETURN_IF_ERROR(impl_->CheckRefs(name, doc));
    }
    return Ok();
}

Result<std::vector<SchemaViolation>> SchemaSet::Validate(
    const std::string& name, const Json& instance, std::size_t max_violations
) const {
    const auto it = impl_->documents.find(name);
    if (it == impl_->documents.end()) {
        return Error::NotFound("no schema named " + name);
    }
    Walker walker(*impl_, max_violations == 0 ? 1 : max_violations);
    walker.Check(it->second, it->second, instance, "", 0);
    return walker.TakeViolations();
}

std::string DescribeViolations(const std::vector<SchemaViolation>& violations) {
    std::string out;
    for (const auto& v : violations) {
        out += (out.empty() ? "" : "; ") + (v.path.empty() ? std::string("(root)") : v.path) + ": " + v.message;
    }
    return out;
}

}  // namespace orch::sim
