#pragma once

#include "common/json.hpp"
#include "types/type_registry.hpp"
#include "util/diag_sink.hpp"
#include "values/typed_value.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace orch::tosca {

/// Validates values against TOSCA types (primitives, scalar units, list/map entry schemas,
/// complex and primitive-derived data types) and constraints, reporting every problem with its
/// path, and returns the value as typed JSON (with data-type defaults filled in).
class ValueChecker {
   public:
    ValueChecker(
        const TypeRegistry& types,
        LiteralTyping typing,
        DiagSink& sink,
        DiagnosticCode code = DiagnosticCode::kInvalidValue
    )
        : types_(types), typing_(typing), sink_(sink), code_(code) {}

    /// Checks `value` against a schema (a property's type, constraints and entry schema).
    Json Check(const yaml::Node& value, const Schema& schema, const Path& path);

    /// Checks against a bare type name plus extra constraints.
    Json CheckType(
        const yaml::Node& value,
        std::string_view type,
        const std::vector<const Constraint*>& constraints,
        const Schema* entry_schema,
        const Schema* key_schema,
        const Path& path
    );

    /// Checks that each constraint operand can be read as `type` (definitions, not values).
    void CheckConstraintOperands(std::string_view type, const std::vector<Constraint>& constraints, const Path& path);

    /// Whether a type name is known (primitive or data type).
    bool IsKnownValueType(std::string_view type) const;

    /// Where to report problems of values that have no position of their own (user inputs
    /// substituted by get_input): at the get_input as written. Null to report at the value.
    void set_fallback(const yaml::Node* node) { fallback_ = node; }

    /// Values computed by functions are checked leniently in compatibility mode (the original
    /// does not type-check them): problems on nodes for which `lenient` is true are warnings,
    /// and such values are kept as computed.
    void set_lenient(std::function<bool(const yaml::Node&)> lenient) { lenient_ = std::move(lenient); }

   private:
    Json CheckPrimitive(
        const yaml::Node& value,
        Primitive p,
        const std::vector<const Constraint*>& constraints,
        const Schema* entry_schema,
        const Schema* key_schema,
        const Path& path
    );
    Json CheckList(
        const yaml::Node& value,
        const std::vector<const Constraint*>& constraints,
        const Schema* entry_schema,
        const Path& path
    );
    Json CheckMap(
        const yaml::Node& value,
        const std::vector<const Constraint*>& constraints,
        const Schema* entry_schema,
        const Schema* key_schema,
        const Path& path
    );
    Json CheckComplex(const yaml::Node& value, const ResolvedType& type, const Path& path);
    void ApplyConstraints(
        const yaml::Node& value,
        const TypedValue* typed,
        std::size_t length,
        Primitive p,
        const std::vector<const Constraint*>& constraints,
        const Path& path
    );
    bool CheckOne(
        const Constraint& c,
        const yaml::Node& value,
        const TypedValue* typed,
        std::size_t length,
        Primitive p,
        const Path& path
    );
    const yaml::Node* Where(const yaml::Node& at) const {
        return at.mark.line == 0 && fallback_ != nullptr ? fallback_ : &at;
    }
    bool IsLenient(const yaml::Node& at) const { return lenient_ && lenient_(at); }
    void Report(
        const yaml::Node& at, const Path& path, std::string message, std::optional<DiagnosticCode> code = std::nullopt
    );
    /// Reports and returns what the checked value becomes: null, or the value itself when lenient.
    Json Reject(
        const yaml::Node& at, const Path& path, std::string message, std::optional<DiagnosticCode> code = std::nullopt
    );

    const TypeRegistry& types_;
    LiteralTyping typing_;
    DiagSink& sink_;
    DiagnosticCode code_;
    int depth_ = 0;
    const yaml::Node* fallback_ = nullptr;
    std::function<bool(const yaml::Node&)> lenient_;
};

/// Number of UTF-8 code points (the TOSCA length of a string).
std::size_t Utf8Length(std::string_view text);

}  // namespace orch::tosca
