#pragma once

#include "common/json.hpp"
#include "types/type_model.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace orch::tosca {

/// A topology input with its effective value.
struct InputSpec {
    PropertyDef def;
    const yaml::Node* value = nullptr;  ///< user value or default; null = none
    bool from_user = false;
    Json json;  ///< the typed value (null when none)
};

struct NodeTemplate;

/// One requirement assignment of a node template, bound to its target when possible.
struct RequirementAssignment {
    std::string name;
    std::size_t index = 0;
    const yaml::Node* at = nullptr;            ///< the list item
    const yaml::Node* value = nullptr;         ///< short form name or long form mapping
    std::string target;                        ///< node template (or type) name as written
    std::string capability;                    ///< as written (name or type)
    const yaml::Node* relationship = nullptr;  ///< as written (name, type or mapping)
    const yaml::Node* node_filter = nullptr;
    const RequirementDef* def = nullptr;
    NodeTemplate* target_node = nullptr;
    const CapabilityDef* target_capability = nullptr;
    const ResolvedType* relationship_type = nullptr;
    const yaml::Node* relationship_properties = nullptr;
    const yaml::Node* relationship_interfaces = nullptr;
    Json relationship_values = Json::object();
};

/// A node template as read, with its evaluated, typed values once checked.
struct NodeTemplate {
    std::string name;
    std::size_t index = 0;
    const yaml::Node* key = nullptr;
    const yaml::Node* node = nullptr;
    const ResolvedType* type = nullptr;
    const yaml::Node* properties = nullptr;
    const yaml::Node* attributes = nullptr;
    const yaml::Node* capabilities = nullptr;
    const yaml::Node* requirements_node = nullptr;
    const yaml::Node* artifacts = nullptr;
    const yaml::Node* interfaces = nullptr;
    std::vector<RequirementAssignment> requirements;

    Json property_values = Json::object();
    Json capability_values = Json::object();
    Json artifact_values = Json::object();
    /// Standard lifecycle operations, type's then template's: {"configure": {"implementation", "inputs"}}.
    Json operation_values = Json::object();

    /// The node this one is hosted on (first requirement whose relationship derives from HostedOn).
    NodeTemplate* host = nullptr;
};

/// A relationship template (topology_template.relationship_templates).
struct RelationshipTemplate {
    std::string name;
    const yaml::Node* node = nullptr;
    const ResolvedType* type = nullptr;
};

struct PolicyTemplate {
    std::string name;
    const yaml::Node* node = nullptr;
    const ResolvedType* type = nullptr;
    std::vector<std::string> targets;
    Json property_values = Json::object();
};

struct OutputValue {
    std::string name;
    std::string description;
    Json value;
    bool resolved = false;
};

/// Everything read from topology_template.
struct Topology {
    std::vector<InputSpec> inputs;
    std::vector<std::unique_ptr<NodeTemplate>> nodes;  ///< template order, stable addresses
    std::unordered_map<std::string, NodeTemplate*> by_name;
    std::unordered_map<std::string, RelationshipTemplate> relationships;
    std::vector<PolicyTemplate> policies;
    std::vector<OutputValue> outputs;

    NodeTemplate* FindNode(const std::string& name) const {
        const auto it = by_name.find(name);
        return it == by_name.end() ? nullptr : it->second;
    }
    const InputSpec* FindInput(const std::string& name) const {
        for (const auto& input : inputs) {
            if (input.def.name == name) {
                return &input;
            }
        }
        return nullptr;
    }
};

}  // namespace orch::tosca
