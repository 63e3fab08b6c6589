#pragma once

#include "util/regex.hpp"
#include "yaml/node.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// The eight kinds of TOSCA type definitions, in the order of their template sections.
enum class TypeKind : std::uint8_t { kData, kArtifact, kCapability, kInterface, kRelationship, kNode, kGroup, kPolicy };
inline constexpr std::size_t kTypeKindCount = 8;
inline constexpr std::array<TypeKind, kTypeKindCount> kAllTypeKinds = {
    TypeKind::kData,
    TypeKind::kArtifact,
    TypeKind::kCapability,
    TypeKind::kInterface,
    TypeKind::kRelationship,
    TypeKind::kNode,
    TypeKind::kGroup,
    TypeKind::kPolicy,
};

std::string_view TypeKindSection(TypeKind kind);  ///< "data_types", ...
std::string_view TypeKindPrefix(TypeKind kind);   ///< "tosca.datatypes.", ... (normative namespace)
std::string_view TypeKindWord(TypeKind kind);     ///< "data", "node", ... (for messages)

enum class ConstraintOp {
    kEqual,
    kGreaterThan,
    kGreaterOrEqual,
    kLessThan,
    kLessOrEqual,
    kInRange,
    kValidValues,
    kLength,
    kMinLength,
    kMaxLength,
    kPattern,
};

struct Constraint {
    ConstraintOp op = ConstraintOp::kEqual;
    const yaml::Node* arg = nullptr;     ///< the operand as written
    const yaml::Node* at = nullptr;      ///< the constraint entry, for positions
    std::shared_ptr<const Regex> regex;  ///< compiled once for kPattern
};

/// A type reference with its constraints and, for list/map, entry (and 1.3 key) schemas.
struct Schema {
    std::string type;
    std::vector<Constraint> constraints;
    std::shared_ptr<const Schema> entry_schema;
    std::shared_ptr<const Schema> key_schema;
    const yaml::Node* at = nullptr;
};

/// A property, attribute, input or parameter definition.
struct PropertyDef {
    std::string name;
    Schema schema;
    bool required = true;
    const yaml::Node* default_value = nullptr;  ///< null when absent or written as null
    const yaml::Node* at = nullptr;             ///< the definition node
    const yaml::Node* key = nullptr;            ///< its name, for positions
};

/// occurrences [min, max]; max -1 = UNBOUNDED.
struct Occurrences {
    std::int64_t min = 1;
    std::int64_t max = 1;
};

struct CapabilityDef {
    std::string name;
    std::string type;
    std::vector<PropertyDef> properties;  ///< refinements of the capability type's properties
    std::vector<PropertyDef> attributes;
    std::vector<std::string> valid_source_types;
    Occurrences occurrences{1, -1};
    const yaml::Node* at = nullptr;
};

struct RequirementDef {
    std::string name;
    std::string capability;    ///< capability type (or name of a capability on the target)
    std::string node;          ///< node type the target must derive from (optional)
    std::string relationship;  ///< relationship type (optional)
    Occurrences occurrences{1, 1};
    const yaml::Node* at = nullptr;
};

struct InterfaceDef {
    std::string name;
    std::string type;
    std::vector<std::string> operations;  ///< operations this definition names
    const yaml::Node* at = nullptr;
};

struct ArtifactDef {
    std::string name;
    std::string type;
    const yaml::Node* at = nullptr;
};

/// One type definition as written (derived_from not yet resolved).
struct TypeDef {
    TypeKind kind = TypeKind::kNode;
    std::string name;
    std::string derived_from;
    const yaml::Node* at = nullptr;
    std::vector<PropertyDef> properties;
    std::vector<PropertyDef> attributes;
    std::vector<Constraint> constraints;         ///< data types
    std::shared_ptr<const Schema> entry_schema;  ///< data types derived from list/map
    std::shared_ptr<const Schema> key_schema;
    std::vector<CapabilityDef> capabilities;   ///< node types
    std::vector<RequirementDef> requirements;  ///< node types
    std::vector<InterfaceDef> interfaces;      ///< node, relationship, group types
    std::vector<ArtifactDef> artifacts;        ///< node types
    std::vector<std::string> operations;       ///< interface types
    std::vector<std::string> valid_types;      ///< capability: valid_source_types; relationship: valid_target_types;
                                               ///< policy: targets; group: members
};

/// An interface as a type sees it after inheritance: its type and every operation declared.
struct EffectiveInterface {
    std::string name;
    std::string type;
    std::vector<std::string> operations;
};

/// A type with its inheritance resolved: the chain to the root and every inherited member,
/// derived definitions replacing their parents' of the same name.
struct ResolvedType {
    const TypeDef* def = nullptr;
    std::vector<std::string> chain;  ///< own name first, then parents up to the root
    std::vector<const PropertyDef*> properties;
    std::vector<const PropertyDef*> attributes;
    std::vector<const CapabilityDef*> capabilities;
    std::vector<const RequirementDef*> requirements;
    std::vector<EffectiveInterface> interfaces;
    std::vector<const ArtifactDef*> artifacts;
    std::vector<const Constraint*> constraints;  ///< data types: all along the chain
    std::string primitive;                       ///< data types derived from a primitive (e.g. PortDef → "integer")
    const Schema* entry_schema = nullptr;
    const Schema* key_schema = nullptr;
    std::vector<std::string> valid_types;  ///< nearest non-empty along the chain
    std::vector<std::string> operations;   ///< interface types: all along the chain
    /// Why the type cannot be used (an ancestor is unknown); empty when fine. Imported files
    /// may carry such types unused (the INDIGO devel types do), so only their use is an error.
    std::string broken;

    const std::string& name() const { return chain.front(); }
    bool DerivesFrom(std::string_view type) const;
    const PropertyDef* FindProperty(std::string_view name) const;
    const PropertyDef* FindAttribute(std::string_view name) const;
    const CapabilityDef* FindCapability(std::string_view name) const;
    const RequirementDef* FindRequirement(std::string_view name) const;
    const EffectiveInterface* FindInterface(std::string_view name) const;
};

/// Primitive (built-in) TOSCA value types; everything else names a data type.
bool IsPrimitiveType(std::string_view type);

}  // namespace orch::tosca
