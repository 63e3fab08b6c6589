#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::placement {

/// Whether an offered GPU model satisfies a requested one. Case-insensitive; the request matches
/// the whole offered name or a run of its words (split at spaces, '-', '_'): "V100" matches
/// "Tesla V100-PCIE-32GB" and "v100-pcie" matches it too, but "A40" does not match "RTX A4000".
/// An empty request matches everything.
bool GpuModelMatches(std::string_view requested, std::string_view offered);

/// Case-insensitive equality (vendors: "NVIDIA" = "nvidia"). Empty request matches everything.
bool SameWord(std::string_view requested, std::string_view offered);

/// GPU memory written in a model name ("Tesla V100-PCIE-32GB" → 32768 MB), when there is one.
std::optional<std::uint64_t> MemoryFromModelName(std::string_view model);

std::string Lower(std::string_view text);

/// An issuer without its trailing '/'s: placement compares issuers ignoring them.
std::string_view TrimSlash(std::string_view text);

}  // namespace orch::placement
