// Where get_property and get_attribute arguments lead: a node's own values, its capabilities',
// through its requirements to their targets, and up the HostedOn chain for HOST.
#include "topology/evaluator.hpp"

namespace orch::tosca {
namespace {

const PropertyDef* FindIn(const std::vector<PropertyDef>& defs, const std::string& name) {
    for (const auto& def : defs) {
        if (def.name == name) {
            return &def;
        }
    }
    return nullptr;
}

/// The first assignment of requirement `name` bound to a node template.
const RequirementAssignment* BoundRequirement(const NodeTemplate& node, const std::string& name) {
    for (const auto& req : node.requirements) {
        if (req.name == name && req.target_node != nullptr) {
            return &req;
        }
    }
    return nullptr;
}

bool HasRequirement(const NodeTemplate& node, const std::string& name) {
    if (node.type != nullptr && node.type->FindRequirement(name) != nullptr) {
        return true;
    }
    for (const auto& req : node.requirements) {
        if (req.name == name) {
            return true;
        }
    }
    return false;
}

}  // namespace

const PropertyDef* Evaluator::FindAttributeDef(
    const NodeTemplate& node, const std::string& capability, const std::string& attribute
) const {
    if (node.type == nullptr) {
        return nullptr;
    }
    if (capability.empty()) {
        const PropertyDef* def = node.type->FindAttribute(attribute);
        return def != nullptr ? def : node.type->FindProperty(attribute);
    }
    const CapabilityDef* cap = node.type->FindCapability(capability);
    if (cap == nullptr) {
        return nullptr;
    }
    if (const PropertyDef* refined = FindIn(cap->attributes, attribute)) {
        return refined;
    }
    const ResolvedType* cap_type = types_.Find(TypeKind::kCapability, cap->type);
    const PropertyDef* def = cap_type != nullptr ? cap_type->FindAttribute(attribute) : nullptr;
    return def != nullptr ? def : FindPropertyDef(node, capability, attribute);
}

ValueSite Evaluator::Locate(const NodeTemplate& node, const yaml::Node& args, bool attribute) const {
    const char* kind = attribute ? "Attribute" : "Property";
    auto lookup = [&](const NodeTemplate& at, const std::string& capability, const std::string& name) {
        return attribute ? FindAttributeDef(at, capability, name) : FindPropertyDef(at, capability, name);
    };
    const std::string& second = args.items[1]->text;
    ValueSite site;
    site.node = &node;
    if (args.items.size() >= 3 && node.type != nullptr) {
        const std::string& third = args.items[2]->text;
        site.next = 3;
        if (node.type->FindCapability(second) != nullptr) {
            site.capability = second;
            site.def = lookup(node, second, third);
            if (site.def == nullptr) {
                site.missing = std::string(kind) + " \"" + third + "\" was not found in capability \"" + second +
                               "\" of node template \"" + node.name + "\"";
            }
            return site;
        }
        if (lookup(node, "", second) == nullptr && HasRequirement(node, second)) {
            const RequirementAssignment* req = BoundRequirement(node, second);
            if (req == nullptr) {
                site.unbound = true;
                return site;
            }
            site.node = req->target_node;
            // The target's own value, else the capability the requirement reached, else (as
            // tosca-parser reads it) the target's capability named like the requirement.
            site.def = lookup(*req->target_node, "", third);
            for (const std::string& cap :
                 {req->target_capability != nullptr ? req->target_capability->name : "", second}) {
                if (site.def == nullptr && !cap.empty() && req->target_node->type != nullptr &&
                    req->target_node->type->FindCapability(cap) != nullptr) {
                    site.def = lookup(*req->target_node, cap, third);
                    site.capability = site.def != nullptr ? cap : "";
                }
            }
            if (site.def == nullptr) {
                site.missing = std::string(kind) + " \"" + third + "\" was not found in node template \"" +
                               req->target_node->name + "\" (target of requirement " + second + ")";
            }
            return site;
        }
    }
    site.next = 2;
    site.def = lookup(node, "", second);
    if (site.def == nullptr) {
        site.missing = std::string(kind) + " \"" + second + "\" was not found in node template \"" + node.name + "\"";
    }
    return site;
}

const NodeTemplate* Evaluator::HostHolding(const NodeTemplate* host, const yaml::Node& args, bool attribute) const {
    // Bounded: a HostedOn cycle (reported separately) must not loop forever.
    for (std::size_t steps = 0; host != nullptr && steps <= topology_.nodes.size(); ++steps) {
        const ValueSite site = Locate(*host, args, attribute);
        if (site.def != nullptr || site.unbound) {
            return host;
        }
        host = host->host;
    }
    return nullptr;
}

}  // namespace orch::tosca
