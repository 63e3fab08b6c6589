#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::connectors {

/// A DNS-1123 label (Kubernetes names): lowercase alphanumerics and '-', starting and ending
/// with an alphanumeric, at most `max` characters; "x" when nothing usable is left.
std::string DnsLabel(std::string_view text, std::size_t max = 63);

/// A DNS-1035 label (Kubernetes Service names): like DnsLabel but starting with a letter.
std::string Dns1035Label(std::string_view text, std::size_t max = 63);

/// One segment of a Marathon id: lowercase letters, digits, '-' and '.', not starting or
/// ending with '-' or '.'; "app" when nothing usable is left.
std::string MarathonIdSegment(std::string_view text);

/// A Chronos job name: letters, digits, '_', '.' and '-' (others become '-').
std::string ChronosName(std::string_view text);

/// Distinct names for `raw` (in order) made by `sanitize`; a clash gets "-2", "-3", ... within
/// `max` characters. Deterministic, so re-running a create finds the same names.
std::vector<std::string> UniqueNames(
    const std::vector<std::string>& raw, const std::function<std::string(std::string_view)>& sanitize, std::size_t max
);

}  // namespace orch::connectors
