#include "types/type_registry.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

// Derivation is resolved recursively; real type hierarchies are under 10 levels deep.
constexpr std::size_t kMaxDerivationDepth = 64;

std::size_t Index(TypeKind kind) {
    return static_cast<std::size_t>(kind);
}

template <typename T>
void MergeByName(std::vector<const T*>& into, const std::vector<T>& own) {
    for (const T& item : own) {
        const auto it =
            std::find_if(into.begin(), into.end(), [&](const T* existing) { return existing->name == item.name; });
        if (it != into.end()) {
            *it = &item;
        } else {
            into.push_back(&item);
        }
    }
}

void AddUnique(std::vector<std::string>& into, const std::vector<std::string>& items) {
    for (const auto& item : items) {
        if (std::find(into.begin(), into.end(), item) == into.end()) {
            into.push_back(item);
        }
    }
}

std::string Position(const yaml::Node* node) {
    if (node == nullptr) {
        return "?";
    }
    return node->SourceName() + ":" + std::to_string(node->mark.line) + ":" + std::to_string(node->mark.column);
}

}  // namespace

TypeRegistry::TypeRegistry(std::shared_ptr<const TypeRegistry> parent) : parent_(std::move(parent)) {}

void TypeRegistry::KeepAlive(std::shared_ptr<const yaml::Arena> arena) {
    arenas_.push_back(std::move(arena));
}

void TypeRegistry::Add(std::shared_ptr<const TypeDef> def, GrammarContext& ctx) {
    DefMap& map = defs_[Index(def->kind)];
    const auto it = map.find(def->name);
    if (it != map.end()) {
        if (it->second->at != nullptr && def->at != nullptr && it->second->at->source != def->at->source) {
            ctx.sink.Warning(
                DiagnosticCode::kTypeRedefined,
                def->at,
                Path().Key(TypeKindSection(def->kind)).Key(def->name),
                "type " + def->name + " is also defined at " + Position(it->second->at) +
                    "; this later definition is used"
            );
        }
        own_order_.erase(std::find(own_order_.begin(), own_order_.end(), it->second.get()));
        it->second = std::move(def);
        own_order_.push_back(it->second.get());
        return;
    }
    own_order_.push_back(def.get());
    const std::string name = def->name;
    map.emplace(name, std::move(def));
}

void TypeRegistry::Resolve(GrammarContext& ctx, bool imported) {
    imported_ = imported;
    for (const TypeKind kind : kAllTypeKinds) {
        for (const auto& [name, def] : defs_[Index(kind)]) {
            std::vector<std::string> visiting;
            ResolveOne(kind, name, visiting, ctx);
        }
    }
}

const ResolvedType* TypeRegistry::ResolveOne(
    TypeKind kind, const std::string& name, std::vector<std::string>& visiting, GrammarContext& ctx
) {
    ResolvedMap& resolved = resolved_[Index(kind)];
    if (const auto it = resolved.find(name); it != resolved.end()) {
        return &it->second;
    }
    const auto def_it = defs_[Index(kind)].find(name);
    if (def_it == defs_[Index(kind)].end()) {
        return parent_ != nullptr ? parent_->Find(kind, name) : nullptr;
    }
    const TypeDef& def = *def_it->second;
    const Path section = Path().Key(TypeKindSection(kind));
    const Path path = section.Key(def.name);
    if (std::find(visiting.begin(), visiting.end(), name) != visiting.end()) {
        ctx.sink.Error(
            DiagnosticCode::kUnknownType, def.at, path, "type " + name + " derives from itself (derived_from cycle)"
        );
        return nullptr;
    }
    if (visiting.size() >= kMaxDerivationDepth) {
        ctx.sink.Error(
            DiagnosticCode::kLimitExceeded,
            def.at,
            path,
            "type " + name + " derives through more than " + std::to_string(kMaxDerivationDepth) + " levels"
        );
        return nullptr;
    }
    ResolvedType out;
    out.def = &def;
    out.chain.push_back(def.name);
    if (!def.derived_from.empty() && def.derived_from != def.name) {
        if (kind == TypeKind::kData && IsPrimitiveType(def.derived_from)) {
            out.primitive = def.derived_from;
        } else {
            visiting.push_back(name);
            const ResolvedType* parent = nullptr;
            // A redefined name (custom types redefine tosca.datatypes.Root) resolves to this layer.
            if (defs_[Index(kind)].count(def.derived_from) > 0) {
                parent = ResolveOne(kind, def.derived_from, visiting, ctx);
            } else {
                parent = Find(kind, def.derived_from);
                if (parent == nullptr) {
                    // Short names may name a type defined in this layer.
                    const std::string full = std::string(TypeKindPrefix(kind)) + def.derived_from;
                    if (defs_[Index(kind)].count(full) > 0) {
                        parent = ResolveOne(kind, full, visiting, ctx);
                    }
                }
            }
            visiting.pop_back();
            if (parent == nullptr) {
                const auto other = KindOf(def.derived_from);
                out.broken = other ? def.name + " derives from " + def.derived_from + ", which is a " +
                                         std::string(TypeKindWord(*other)) + " type, not a " +
                                         std::string(TypeKindWord(kind)) + " type"
                                   : def.name + " derives from unknown type " + def.derived_from;
                ctx.sink.Add(
                    imported_ ? Severity::kWarning : Severity::kError,
                    DiagnosticCode::kUnknownType,
                    def.at,
                    path.Key("derived_from"),
                    out.broken
                );
            } else {
                Inherit(out, *parent);
            }
        }
    }
    ApplyOwn(out, def);
    return &resolved.emplace(name, std::move(out)).first->second;
}

void TypeRegistry::Inherit(ResolvedType& out, const ResolvedType& parent) const {
    out.chain.insert(out.chain.end(), parent.chain.begin(), parent.chain.end());
    out.properties = parent.properties;
    out.attributes = parent.attributes;
    out.capabilities = parent.capabilities;
    out.requirements = parent.requirements;
    out.interfaces = parent.interfaces;
    out.artifacts = parent.artifacts;
    out.constraints = parent.constraints;
    out.primitive = parent.primitive;
    out.entry_schema = parent.entry_schema;
    out.key_schema = parent.key_schema;
    out.valid_types = parent.valid_types;
    out.operations = parent.operations;
    out.broken = parent.broken;
}

void TypeRegistry::ApplyOwn(ResolvedType& out, const TypeDef& def) const {
    MergeByName(out.properties, def.properties);
    MergeByName(out.attributes, def.attributes);
    MergeByName(out.capabilities, def.capabilities);
    MergeByName(out.requirements, def.requirements);
    MergeByName(out.artifacts, def.artifacts);
    for (const auto& c : def.constraints) {
        out.constraints.push_back(&c);
    }
    if (def.entry_schema) {
        out.entry_schema = def.entry_schema.get();
    }
    if (def.key_schema) {
        out.key_schema = def.key_schema.get();
    }
    if (!def.valid_types.empty()) {
        out.valid_types = def.valid_types;
    }
    AddUnique(out.operations, def.operations);
    for (const auto& itf : def.interfaces) {
        auto it = std::find_if(out.interfaces.begin(), out.interfaces.end(), [&](const EffectiveInterface& e) {
            return e.name == itf.name;
        });
        if (it == out.interfaces.end()) {
            out.interfaces.push_back({itf.name, itf.type, {}});
            it = out.interfaces.end() - 1;
        } else if (!itf.type.empty()) {
            it->type = itf.type;
        }
        AddUnique(it->operations, itf.operations);
        if (const ResolvedType* itype = Find(TypeKind::kInterface, it->type)) {
            AddUnique(it->operations, itype->operations);
        }
    }
}

const ResolvedType* TypeRegistry::FindExact(TypeKind kind, std::string_view name) const {
    const ResolvedMap& map = resolved_[Index(kind)];
    if (const auto it = map.find(name); it != map.end()) {
        return &it->second;
    }
    return parent_ != nullptr ? parent_->FindExact(kind, name) : nullptr;
}

const ResolvedType* TypeRegistry::Find(TypeKind kind, std::string_view name) const {
    if (name.empty()) {
        return nullptr;
    }
    if (const ResolvedType* exact = FindExact(kind, name)) {
        return exact;
    }
    if (name.rfind("tosca:", 0) == 0) {
        name.remove_prefix(6);
        if (const ResolvedType* exact = FindExact(kind, name)) {
            return exact;
        }
    }
    if (name.rfind("tosca.", 0) == 0) {
        return nullptr;  // a full name that is not defined
    }
    // Normative short names: "Compute", "Endpoint.Admin", "PortDef" (tosca.datatypes.network.PortDef).
    std::string full(TypeKindPrefix(kind));
    full += name;
    if (const ResolvedType* found = FindExact(kind, full)) {
        return found;
    }
    full.insert(TypeKindPrefix(kind).size(), "network.");
    return FindExact(kind, full);
}

std::optional<TypeKind> TypeRegistry::KindOf(std::string_view name) const {
    for (const TypeKind kind : kAllTypeKinds) {
        if (Find(kind, name) != nullptr) {
            return kind;
        }
    }
    return std::nullopt;
}

bool TypeRegistry::Derives(TypeKind kind, std::string_view type, std::string_view base) const {
    const ResolvedType* t = Find(kind, type);
    const ResolvedType* b = Find(kind, base);
    return t != nullptr && b != nullptr && t->DerivesFrom(b->name());
}

}  // namespace orch::tosca
