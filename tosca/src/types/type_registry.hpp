#pragma once

#include "types/type_model.hpp"
#include "util/grammar.hpp"

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace orch::tosca {

struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

/// Type definitions with inheritance resolved, layered: a registry sees its own types first and
/// then its parent's (normative types ← imported libraries ← a template's own types), so the
/// expensive layers are built once and shared, immutable, between concurrent checks.
class TypeRegistry {
   public:
    explicit TypeRegistry(std::shared_ptr<const TypeRegistry> parent = nullptr);
    TypeRegistry(const TypeRegistry&) = delete;
    TypeRegistry& operator=(const TypeRegistry&) = delete;

    /// Keeps a document alive (definitions point into it).
    void KeepAlive(std::shared_ptr<const yaml::Arena> arena);

    /// Adds a definition; a later definition of the same name replaces an earlier one.
    /// Definitions are shared: a cached imported document serves every registry that imports it.
    void Add(std::shared_ptr<const TypeDef> def, GrammarContext& ctx);

    /// Resolves inheritance of every added definition. Call once, after the last Add().
    /// For imported layers (`imported`), a type deriving from an unknown type is only a warning:
    /// it becomes an error where a template uses it.
    void Resolve(GrammarContext& ctx, bool imported = false);

    /// Finds a type by full name, by normative short name ("Compute", "AttachesTo") or with the
    /// "tosca:" prefix. Null when unknown.
    const ResolvedType* Find(TypeKind kind, std::string_view name) const;

    /// The kind of a name defined as some other kind (for "X is a capability type, not a node type").
    std::optional<TypeKind> KindOf(std::string_view name) const;

    /// Whether `type` (of `kind`) is or derives from `base`, both possibly short names.
    bool Derives(TypeKind kind, std::string_view type, std::string_view base) const;

    /// Definitions added to this layer (not the parent's), in order of addition.
    const std::vector<const TypeDef*>& own_defs() const { return own_order_; }

    bool empty() const { return own_order_.empty(); }

   private:
    using DefMap = std::unordered_map<std::string, std::shared_ptr<const TypeDef>, StringHash, std::equal_to<>>;
    using ResolvedMap = std::unordered_map<std::string, ResolvedType, StringHash, std::equal_to<>>;

    const ResolvedType* FindExact(TypeKind kind, std::string_view name) const;
    const ResolvedType* ResolveOne(
        TypeKind kind, const std::string& name, std::vector<std::string>& visiting, GrammarContext& ctx
    );
    bool imported_ = false;
    void Inherit(ResolvedType& out, const ResolvedType& parent) const;
    void ApplyOwn(ResolvedType& out, const TypeDef& def) const;

    std::shared_ptr<const TypeRegistry> parent_;
    std::array<DefMap, kTypeKindCount> defs_;
    std::array<ResolvedMap, kTypeKindCount> resolved_;
    std::vector<const TypeDef*> own_order_;
    std::vector<std::shared_ptr<const yaml::Arena>> arenas_;
};

}  // namespace orch::tosca
