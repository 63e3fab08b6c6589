#include "topology/topology_checker.hpp"
#include "types/definition_parser.hpp"

#include <algorithm>
#include <functional>

namespace orch::tosca {
namespace {

bool IsHostedOn(const RequirementAssignment& req) {
    return req.relationship_type != nullptr && req.relationship_type->DerivesFrom("tosca.relationships.HostedOn");
}

}  // namespace

void TopologyChecker::ReadRequirements(NodeTemplate& node, const Path& path) {
    const Path reqs = path.Key("requirements");
    if (node.type == nullptr || node.requirements_node == nullptr ||
        !ExpectSequence(node.requirements_node, reqs, "requirements", ctx_)) {
        return;
    }
    for (std::size_t i = 0; i < node.requirements_node->items.size(); ++i) {
        const yaml::Node& item = *node.requirements_node->items[i];
        const Path item_path = reqs.Index(i);
        const yaml::Entry* entry = SingleEntry(item, item_path, "a requirement", ctx_);
        if (entry == nullptr) {
            continue;
        }
        RequirementAssignment req;
        req.name = entry->key->text;
        req.index = i;
        req.at = &item;
        req.value = entry->value;
        const Path here = item_path.Key(req.name);
        req.def = node.type->FindRequirement(req.name);
        if (req.def == nullptr) {
            sink_.Error(
                DiagnosticCode::kRequirement,
                entry->key,
                here,
                "requirement '" + req.name + "' is not declared by node type " + node.type->name()
            );
            continue;
        }
        if (req.value->IsScalar()) {
            req.target = req.value->text;
        } else if (req.value->IsMapping()) {
            const yaml::Node& m = *req.value;
            CheckKeys(
                m,
                {"node", "capability", "relationship", "node_filter", "occurrences", "description"},
                here,
                "requirement '" + req.name + "'",
                ctx_
            );
            req.target = ReadText(m.Find("node"), here.Key("node"), "node", ctx_).value_or("");
            req.capability = ReadText(m.Find("capability"), here.Key("capability"), "capability", ctx_).value_or("");
            req.relationship = m.Find("relationship");
            req.node_filter = m.Find("node_filter");
        } else if (!req.value->IsNull()) {
            sink_.Error(
                DiagnosticCode::kInvalidValue,
                req.value,
                here,
                "a requirement must name a node template or be a mapping {node, capability, relationship}"
            );
            continue;
        }
        BindRequirement(node, req, here);
        node.requirements.push_back(std::move(req));
    }
    for (const auto& req : node.requirements) {
        if (IsHostedOn(req) && req.target_node != nullptr) {
            node.host = req.target_node;
            break;
        }
    }
}

void TopologyChecker::BindRequirement(NodeTemplate& node, RequirementAssignment& req, const Path& path) {
    ResolveRelationship(node, req, path);
    if (req.target.empty()) {
        return;  // an abstract requirement: the orchestrator would select a target
    }
    NodeTemplate* target = topology_.FindNode(req.target);
    if (target == nullptr) {
        if (types_.Find(TypeKind::kNode, req.target) != nullptr) {
            return;  // a node type: any node of that type may satisfy it
        }
        sink_.Error(
            DiagnosticCode::kRequirement,
            req.value->IsMapping() ? req.value->Find("node") : req.value,
            path,
            "requirement '" + req.name + "' of node '" + node.name + "' refers to '" + req.target +
                "', which is not a node template"
        );
        return;
    }
    req.target_node = target;
    if (target->type == nullptr) {
        return;
    }
    if (!req.def->node.empty()) {
        const ResolvedType* wanted = types_.Find(TypeKind::kNode, req.def->node);
        if (wanted != nullptr && !target->type->DerivesFrom(wanted->name())) {
            sink_.Warning(
                DiagnosticCode::kRequirement,
                req.value,
                path,
                "requirement '" + req.name + "' expects a node of type " + wanted->name() + "; '" + target->name +
                    "' is a " + target->type->name()
            );
        }
    }
    std::string why;
    req.target_capability = MatchCapability(*target, req, why);
    if (req.target_capability == nullptr) {
        sink_.Error(DiagnosticCode::kRequirement, req.value, path, why);
    }
}

const CapabilityDef* TopologyChecker::MatchCapability(
    const NodeTemplate& target, const RequirementAssignment& req, std::string& why
) const {
    const ResolvedType* required = types_.Find(TypeKind::kCapability, req.def->capability);
    const auto derives = [&](const CapabilityDef* cap, const ResolvedType* base) {
        const ResolvedType* type = types_.Find(TypeKind::kCapability, cap->type);
        return base == nullptr || (type != nullptr && type->DerivesFrom(base->name()));
    };
    const auto first_of_type = [&](const ResolvedType* base) -> const CapabilityDef* {
        for (const CapabilityDef* cap : target.type->capabilities) {
            if (derives(cap, base)) {
                return cap;
            }
        }
        return nullptr;
    };
    const std::string needed = required != nullptr ? required->name() : req.def->capability;
    const CapabilityDef* candidate = nullptr;
    if (!req.capability.empty()) {
        candidate = target.type->FindCapability(req.capability);
        if (candidate == nullptr) {
            const ResolvedType* named = types_.Find(TypeKind::kCapability, req.capability);
            if (named == nullptr) {
                why = "requirement '" + req.name + "': '" + req.capability + "' is neither a capability of node '" +
                      target.name + "' nor a capability type";
                return nullptr;
            }
            candidate = first_of_type(named);
            if (candidate == nullptr) {
                why = "requirement '" + req.name + "': node '" + target.name + "' (" + target.type->name() +
                      ") has no capability of type " + named->name();
                return nullptr;
            }
        }
        if (!derives(candidate, required)) {
            why = "requirement '" + req.name + "' needs a capability of type " + needed + "; capability '" +
                  candidate->name + "' of node '" + target.name + "' is a " + candidate->type;
            return nullptr;
        }
        return candidate;
    }
    if (required == nullptr) {
        // The definition names a capability rather than a capability type.
        if ((candidate = target.type->FindCapability(req.def->capability)) != nullptr) {
            return candidate;
        }
    } else if ((candidate = first_of_type(required)) != nullptr) {
        return candidate;
    }
    why = "requirement '" + req.name + "' needs a capability of type " + needed + ", which node '" + target.name +
          "' (" + target.type->name() + ") does not offer";
    return nullptr;
}

void TopologyChecker::ResolveRelationship(NodeTemplate& node, RequirementAssignment& req, const Path& path) {
    (void)node;
    const ResolvedType* wanted = types_.Find(TypeKind::kRelationship, req.def->relationship);
    const yaml::Node* rel = req.relationship;
    const Path rel_path = path.Key("relationship");
    if (rel == nullptr || rel->IsNull()) {
        req.relationship_type =
            wanted != nullptr ? wanted : types_.Find(TypeKind::kRelationship, "tosca.relationships.DependsOn");
        return;
    }
    std::string type_name;
    if (rel->IsScalar()) {
        if (const auto it = topology_.relationships.find(rel->text); it != topology_.relationships.end()) {
            req.relationship_type = it->second.type;
            if (it->second.node != nullptr && it->second.node->IsMapping()) {
                req.relationship_properties = it->second.node->Find("properties");
                req.relationship_interfaces = it->second.node->Find("interfaces");
            }
            type_name = req.relationship_type != nullptr ? req.relationship_type->name() : rel->text;
        } else {
            type_name = rel->text;
            req.relationship_type = types_.Find(TypeKind::kRelationship, type_name);
            if (req.relationship_type == nullptr) {
                sink_.Error(
                    DiagnosticCode::kUnknownType,
                    rel,
                    rel_path,
                    "unknown relationship type or template '" + type_name + "'"
                );
                return;
            }
        }
    } else if (ExpectMapping(rel, rel_path, "a relationship", ctx_) && rel->IsMapping()) {
        CheckKeys(*rel, {"type", "properties", "interfaces", "description"}, rel_path, "a relationship", ctx_);
        req.relationship_properties = rel->Find("properties");
        req.relationship_interfaces = rel->Find("interfaces");
        if (const auto type = ReadText(rel->Find("type"), rel_path.Key("type"), "type", ctx_)) {
            type_name = *type;
            req.relationship_type = types_.Find(TypeKind::kRelationship, type_name);
            if (req.relationship_type == nullptr) {
                sink_.Error(
                    DiagnosticCode::kUnknownType,
                    rel->Find("type"),
                    rel_path.Key("type"),
                    "unknown relationship type " + type_name
                );
                return;
            }
        } else {
            req.relationship_type = wanted;
        }
    }
    if (wanted != nullptr && req.relationship_type != nullptr && !req.relationship_type->DerivesFrom(wanted->name())) {
        sink_.StrictError(
            strict(),
            DiagnosticCode::kRequirement,
            rel,
            rel_path,
            "requirement '" + req.name + "' needs a relationship of type " + wanted->name() + "; " +
                req.relationship_type->name() + " does not derive from it"
        );
    }
}

void TopologyChecker::CheckRelationshipValues(NodeTemplate& node, RequirementAssignment& req, const Path& path) {
    if (req.relationship_type == nullptr) {
        return;
    }
    const EvalScope scope{&node, &node, req.target_node, false, &req};
    const std::string owner = "relationship type " + req.relationship_type->name();
    const Path rel_path = path.Key("relationship");
    req.relationship_values = CheckAssignments(
        req.relationship_properties,
        req.relationship_type->properties,
        owner,
        [&](const PropertyDef&, const yaml::Node* raw, const Path& p) { return evaluator_.Evaluate(*raw, scope, p); },
        true,
        true,
        req.value,
        rel_path.Key("properties")
    );
    CheckInterfaces(req.relationship_interfaces, *req.relationship_type, owner, scope, rel_path.Key("interfaces"));
}

void TopologyChecker::CheckNodeFilter(const NodeTemplate& node, const RequirementAssignment& req, const Path& path) {
    const yaml::Node* filter = req.node_filter;
    const Path fpath = path.Key("node_filter");
    if (filter == nullptr || !ExpectMapping(filter, fpath, "node_filter", ctx_) || !filter->IsMapping()) {
        return;
    }
    CheckKeys(*filter, {"properties", "capabilities"}, fpath, "node_filter", ctx_);
    const NodeTemplate* target = req.target_node;
    // Checks `- name: constraint(s)` clauses against the target's definitions and values.
    const auto check_clauses = [&](const yaml::Node* clauses, const std::string& capability, const Path& cpath) {
        if (clauses == nullptr || !ExpectSequence(clauses, cpath, "node_filter properties", ctx_)) {
            return;
        }
        for (std::size_t i = 0; i < clauses->items.size(); ++i) {
            const Path item = cpath.Index(i);
            const yaml::Entry* clause = SingleEntry(*clauses->items[i], item, "a property filter", ctx_);
            if (clause == nullptr) {
                continue;
            }
            const Path here = item.Key(clause->key->text);
            const yaml::Node* spec = clause->value;
            std::vector<Constraint> constraints;
            if (spec->IsSequence()) {
                constraints = ParseConstraints(spec, here, ctx_);
            } else if (spec->IsMapping()) {
                for (const auto& e : spec->entries) {
                    yaml::Node* wrapper = scratch_.New(yaml::NodeKind::kSequence, spec->mark);
                    yaml::Node* single = scratch_.New(yaml::NodeKind::kMapping, e.key->mark);
                    wrapper->source = spec->source;
                    single->source = spec->source;
                    single->entries.push_back(e);
                    wrapper->items.push_back(single);
                    for (auto& c : ParseConstraints(wrapper, here, ctx_)) {
                        constraints.push_back(std::move(c));
                    }
                }
            } else {
                sink_.Error(
                    DiagnosticCode::kInvalidValue,
                    spec,
                    here,
                    "a property filter needs constraints, not " + yaml::Describe(*spec)
                );
                continue;
            }
            if (target == nullptr || target->type == nullptr) {
                continue;
            }
            const PropertyDef* def = nullptr;
            if (capability.empty()) {
                def = target->type->FindProperty(clause->key->text);
            } else if (const CapabilityDef* cap = target->type->FindCapability(capability)) {
                for (const PropertyDef* p : CapabilityProperties(*cap)) {
                    if (p->name == clause->key->text) {
                        def = p;
                    }
                }
            }
            if (def == nullptr) {
                sink_.StrictError(
                    strict(),
                    DiagnosticCode::kRequirement,
                    clause->key,
                    here,
                    "node_filter names property '" + clause->key->text + "', which node '" + target->name +
                        "' does not have"
                );
                continue;
            }
            const Evaluated value = evaluator_.Property(*target, capability, def->name, here);
            if (!value.resolved || value.value == nullptr) {
                continue;
            }
            Schema schema;
            schema.type = def->schema.type;
            schema.constraints = std::move(constraints);
            DiagSink local(4);
            ValueChecker(types_, LiteralTyping::kTextual, local).Check(*value.value, schema, here);
            for (const auto& d : local.Take()) {
                sink_.StrictError(
                    strict(),
                    DiagnosticCode::kRequirement,
                    spec,
                    here,
                    "node '" + target->name + "' does not satisfy the node_filter of requirement '" + req.name +
                        "' of '" + node.name + "': " + d.message
                );
            }
        }
    };
    check_clauses(filter->Find("properties"), "", fpath.Key("properties"));
    const yaml::Node* caps = filter->Find("capabilities");
    const Path caps_path = fpath.Key("capabilities");
    if (caps != nullptr && ExpectSequence(caps, caps_path, "node_filter capabilities", ctx_)) {
        for (std::size_t i = 0; i < caps->items.size(); ++i) {
            const Path item = caps_path.Index(i);
            const yaml::Entry* entry = SingleEntry(*caps->items[i], item, "a capability filter", ctx_);
            if (entry == nullptr) {
                continue;
            }
            const Path here = item.Key(entry->key->text);
            std::string capability = entry->key->text;
            if (target != nullptr && target->type != nullptr && target->type->FindCapability(capability) == nullptr) {
                const ResolvedType* cap_type = types_.Find(TypeKind::kCapability, capability);
                const auto it = cap_type == nullptr
                                    ? target->type->capabilities.end()
                                    : std::find_if(
                                          target->type->capabilities.begin(),
                                          target->type->capabilities.end(),
                                          [&](const CapabilityDef* c) {
                                              return types_.Derives(TypeKind::kCapability, c->type, cap_type->name());
                                          }
                                      );
                if (it == target->type->capabilities.end()) {
                    sink_.StrictError(
                        strict(),
                        DiagnosticCode::kRequirement,
                        entry->key,
                        here,
                        "node_filter names capability '" + capability + "', which node '" + target->name +
                            "' does not have"
                    );
                    continue;
                }
                capability = (*it)->name;
            }
            if (ExpectMapping(entry->value, here, "a capability filter", ctx_) && entry->value->IsMapping()) {
                CheckKeys(*entry->value, {"properties"}, here, "a capability filter", ctx_);
                check_clauses(entry->value->Find("properties"), capability, here.Key("properties"));
            }
        }
    }
}

void TopologyChecker::CheckOccurrences(const NodeTemplate& node, const Path& path) {
    if (!strict() || node.type == nullptr) {
        return;  // the original does not check occurrences
    }
    for (const RequirementDef* def : node.type->requirements) {
        const auto count =
            std::count_if(node.requirements.begin(), node.requirements.end(), [&](const RequirementAssignment& r) {
                return r.def == def;
            });
        if (def->occurrences.max >= 0 && count > def->occurrences.max) {
            sink_.Error(
                DiagnosticCode::kRequirement,
                node.requirements_node,
                path.Key("requirements"),
                "requirement '" + def->name + "' is given " + std::to_string(count) + " times; node type " +
                    node.type->name() + " allows at most " + std::to_string(def->occurrences.max)
            );
        }
    }
}

void TopologyChecker::DetectCycles() {
    // Tarjan's strongly connected components, iterative so that long chains cannot exhaust the stack.
    const std::size_t n = topology_.nodes.size();
    std::vector<std::vector<std::size_t>> edges(n);
    for (const auto& node : topology_.nodes) {
        for (const auto& req : node->requirements) {
            if (req.target_node != nullptr) {
                edges[node->index].push_back(req.target_node->index);
            }
        }
    }
    constexpr std::size_t kUnvisited = static_cast<std::size_t>(-1);
    std::vector<std::size_t> index(n, kUnvisited);
    std::vector<std::size_t> low(n, 0);
    std::vector<bool> on_stack(n, false);
    std::vector<std::size_t> stack;
    std::size_t counter = 0;
    std::vector<std::vector<std::size_t>> cycles;
    struct Frame {
        std::size_t v;
        std::size_t next_edge;
    };
    for (std::size_t root = 0; root < n; ++root) {
        if (index[root] != kUnvisited) {
            continue;
        }
        std::vector<Frame> work{{root, 0}};
        index[root] = low[root] = counter++;
        stack.push_back(root);
        on_stack[root] = true;
        while (!work.empty()) {
            Frame& frame = work.back();
            const std::size_t v = frame.v;
            if (frame.next_edge < edges[v].size()) {
                const std::size_t w = edges[v][frame.next_edge++];
                if (index[w] == kUnvisited) {
                    index[w] = low[w] = counter++;
                    stack.push_back(w);
                    on_stack[w] = true;
                    work.push_back({w, 0});
                } else if (on_stack[w]) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            if (low[v] == index[v]) {
                std::vector<std::size_t> component;
                std::size_t w = 0;
                do {
                    w = stack.back();
                    stack.pop_back();
                    on_stack[w] = false;
                    component.push_back(w);
                } while (w != v);
                const bool self_loop = std::find(edges[v].begin(), edges[v].end(), v) != edges[v].end();
                if (component.size() > 1 || self_loop) {
                    std::sort(component.begin(), component.end());
                    cycles.push_back(std::move(component));
                }
            }
            work.pop_back();
            if (!work.empty()) {
                low[work.back().v] = std::min(low[work.back().v], low[v]);
            }
        }
    }
    std::sort(cycles.begin(), cycles.end());
    const Path nodes = Path().Key("topology_template");
    const Path node_templates = nodes.Key("node_templates");
    for (const auto& cycle : cycles) {
        std::string names;
        for (const std::size_t i : cycle) {
            names += (names.empty() ? "" : ", ") + topology_.nodes[i]->name;
        }
        const NodeTemplate& first = *topology_.nodes[cycle.front()];
        sink_.Error(
            DiagnosticCode::kDependencyLoop,
            first.requirements_node != nullptr ? first.requirements_node : first.key,
            node_templates.Key(first.name).Key("requirements"),
            "Found node depencency loop in TOSCA topology; involved nodes: [" + names + "]"
        );
    }
}

}  // namespace orch::tosca
