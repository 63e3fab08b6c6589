#pragma once

#include "tosca/diagnostic.hpp"
#include "yaml/node.hpp"

#include <string>
#include <vector>

namespace orch::tosca::yaml {

/// A load's outcome as the differential tests compare it: the tree and the findings.
struct LoadedText {
    const Node* root = nullptr;
    std::vector<Diagnostic> diagnostics;
};

/// The first difference between two loads of the same text (kinds, text, plain flag, line,
/// column and subtree size of every node; every finding), or "" when they are identical. Used by
/// the differential unit test and the fuzz target to hold the fast loader to yaml-cpp's results.
std::string FirstDifference(const LoadedText& expected, const LoadedText& actual);

}  // namespace orch::tosca::yaml
