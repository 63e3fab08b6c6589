#include "types/type_model.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

template <typename T>
const T* FindByName(const std::vector<const T*>& items, std::string_view name) {
    for (const T* item : items) {
        if (item->name == name) {
            return item;
        }
    }
    return nullptr;
}

}  // namespace

std::string_view TypeKindSection(TypeKind kind) {
    switch (kind) {
        case TypeKind::kData:
            return "data_types";
        case TypeKind::kArtifact:
            return "artifact_types";
        case TypeKind::kCapability:
            return "capability_types";
        case TypeKind::kInterface:
            return "interface_types";
        case TypeKind::kRelationship:
            return "relationship_types";
        case TypeKind::kNode:
            return "node_types";
        case TypeKind::kGroup:
            return "group_types";
        case TypeKind::kPolicy:
            return "policy_types";
    }
    return "node_types";
}

std::string_view TypeKindPrefix(TypeKind kind) {
    switch (kind) {
        case TypeKind::kData:
            return "tosca.datatypes.";
        case TypeKind::kArtifact:
            return "tosca.artifacts.";
        case TypeKind::kCapability:
            return "tosca.capabilities.";
        case TypeKind::kInterface:
            return "tosca.interfaces.";
        case TypeKind::kRelationship:
            return "tosca.relationships.";
        case TypeKind::kNode:
            return "tosca.nodes.";
        case TypeKind::kGroup:
            return "tosca.groups.";
        case TypeKind::kPolicy:
            return "tosca.policies.";
    }
    return "tosca.nodes.";
}

std::string_view TypeKindWord(TypeKind kind) {
    switch (kind) {
        case TypeKind::kData:
            return "data";
        case TypeKind::kArtifact:
            return "artifact";
        case TypeKind::kCapability:
            return "capability";
        case TypeKind::kInterface:
            return "interface";
        case TypeKind::kRelationship:
            return "relationship";
        case TypeKind::kNode:
            return "node";
        case TypeKind::kGroup:
            return "group";
        case TypeKind::kPolicy:
            return "policy";
    }
    return "node";
}

bool ResolvedType::DerivesFrom(std::string_view type) const {
    return std::find(chain.begin(), chain.end(), type) != chain.end();
}

const PropertyDef* ResolvedType::FindProperty(std::string_view name) const {
    return FindByName(properties, name);
}
const PropertyDef* ResolvedType::FindAttribute(std::string_view name) const {
    return FindByName(attributes, name);
}
const CapabilityDef* ResolvedType::FindCapability(std::string_view name) const {
    return FindByName(capabilities, name);
}
const RequirementDef* ResolvedType::FindRequirement(std::string_view name) const {
    return FindByName(requirements, name);
}

const EffectiveInterface* ResolvedType::FindInterface(std::string_view name) const {
    for (const auto& itf : interfaces) {
        if (itf.name == name) {
            return &itf;
        }
    }
    return nullptr;
}

bool IsPrimitiveType(std::string_view type) {
    static constexpr std::string_view kPrimitives[] = {
        "string",
        "integer",
        "float",
        "boolean",
        "timestamp",
        "version",
        "range",
        "list",
        "map",
        "scalar-unit.size",
        "scalar-unit.time",
        "scalar-unit.frequency",
        "scalar-unit.bitrate",
    };
    return std::find(std::begin(kPrimitives), std::end(kPrimitives), type) != std::end(kPrimitives);
}

}  // namespace orch::tosca
