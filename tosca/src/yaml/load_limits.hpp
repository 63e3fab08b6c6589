#pragma once

#include <cstddef>

namespace orch::tosca::yaml {

struct LoadLimits {
    std::size_t max_bytes = 2u << 20;
    int max_depth = 64;
    std::size_t max_nodes = 200'000;  ///< aliases count as the size of what they expand to
};

}  // namespace orch::tosca::yaml
