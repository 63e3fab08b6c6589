#pragma once

#include "common/json.hpp"
#include "common/result.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace orch::sim {

/// One reason a document does not satisfy its schema.
struct SchemaViolation {
    std::string path;     ///< JSON pointer into the validated document ("/apps/0/gpus"); "" is the root
    std::string message;  ///< what is wrong there, in words
};

/// A set of JSON Schema documents that may refer to each other by file name ("./AppDefinition.json").
///
/// Implements the subset of draft-04 / draft-07 (and OpenAPI-derived) schemas that Marathon's and
/// the generated Kubernetes schemas use: type, enum, const, properties, patternProperties,
/// additionalProperties, required, items (single and tuple), additionalItems, min/maxItems,
/// uniqueItems, minimum/maximum (both exclusive styles), min/maxLength, pattern, $ref (local JSON
/// pointers, "#", and other documents of the set), allOf, anyOf, oneOf, not. `format`, `default`,
/// `description` and `x-kubernetes-*` annotations are ignored, as generic validators do.
/// After loading, the set is read-only and safe to use from several threads.
class SchemaSet {
   public:
    SchemaSet();
    ~SchemaSet();
    SchemaSet(SchemaSet&&) noexcept;
    SchemaSet& operator=(SchemaSet&&) noexcept;
    SchemaSet(const SchemaSet&) = delete;
    SchemaSet& operator=(const SchemaSet&) = delete;

    /// Adds a schema under `name` (its file name) and compiles its regular expressions.
    Status Add(const std::string& name, Json document);
    /// Parses `text` as JSON, then adds it.
    Status AddText(const std::string& name, std::string_view text);
    bool Has(const std::string& name) const;
    std::vector<std::string> Names() const;

    /// Fails naming the first `$ref` (in any document) that does not resolve.
    Status CheckReferences() const;

    /// Validates `instance` against the document `name`. An unknown name is an error; a valid
    /// instance yields an empty list. At most `max_violations` are reported.
    Result<std::vector<SchemaViolation>> Validate(
        const std::string& name, const Json& instance, std::size_t max_violations = 20
    ) const;

    struct Impl;  ///< opaque; defined by the implementation

   private:
    std::unique_ptr<Impl> impl_;
};

/// "path: message; path: message" for error texts ("(root)" stands for the empty path).
std::string DescribeViolations(const std::vector<SchemaViolation>& violations);

}  // namespace orch::sim
