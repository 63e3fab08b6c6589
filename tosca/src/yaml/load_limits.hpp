#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace orch::tosca::yaml {

struct LoadLimits {
    std::size_t max_bytes = 2u << 20;
    int max_depth = 64;
    std::size_t max_nodes = 200'000;  ///< aliases count as the size of what they expand to
    /// What all alias references together may add, as a multiple of the document's size (at least
    /// kMinExpansionBase): each reference costs the text bytes of the subtree it names plus
    /// kAliasNodeWeight per node in it. A node count alone lets one alias to a 100 KB scalar
    /// expand into gigabytes when the tree is copied (ToJson of metadata, inputs, outputs).
    std::size_t max_alias_expansion = 4;

    static constexpr std::uint64_t kMinExpansionBase = 64u << 10;
    static constexpr std::uint64_t kAliasNodeWeight = 8;

    /// The expansion budget, in bytes, for a document of `input_bytes`.
    std::uint64_t AliasBudget(std::size_t input_bytes) const {
        return static_cast<std::uint64_t>(max_alias_expansion) *
               std::max<std::uint64_t>(input_bytes, kMinExpansionBase);
    }
};

}  // namespace orch::tosca::yaml
