// Kubernetes resource quantities and the requests a pod makes of a node.
#include "kube_model.hpp"

#include <charconv>
#include <cmath>
#include <map>

namespace orch::sim {

std::optional<double> ParseQuantity(const Json& quantity) {
    if (quantity.is_number()) {
        return quantity.get<double>();
    }
    if (!quantity.is_string()) {
        return std::nullopt;
    }
    const std::string text = quantity.get<std::string>();
    std::size_t split = 0;
    while (split < text.size() && (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.' ||
                                   (split == 0 && (text[0] == '+' || text[0] == '-')))) {
        ++split;
    }
    double number = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + (text[0] == '+' ? 1 : 0), text.data() + split, number);
    if (split == 0 || ec != std::errc() || ptr != text.data() + split) {
        return std::nullopt;
    }
    const std::string suffix = text.substr(split);
    static const std::map<std::string, double> kSuffixes = {
        {"", 1},
        {"m", 1e-3},
        {"k", 1e3},
        {"M", 1e6},
        {"G", 1e9},
        {"T", 1e12},
        {"P", 1e15},
        {"E", 1e18},
        {"Ki", 1024.0},
        {"Mi", 1048576.0},
        {"Gi", 1073741824.0},
        {"Ti", 1099511627776.0},
        {"Pi", 1125899906842624.0},
        {"Ei", 1152921504606846976.0},
    };
    if (const auto it = kSuffixes.find(suffix); it != kSuffixes.end()) {
        return number * it->second;
    }
    if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
        int exponent = 0;
        const auto [eptr, eec] = std::from_chars(suffix.data() + 1, suffix.data() + suffix.size(), exponent);
        if (eec == std::errc() && eptr == suffix.data() + suffix.size()) {
            return number * std::pow(10.0, exponent);
        }
    }
    return std::nullopt;
}

PodDemand PodDemandOf(const Json& pod_spec) {
    PodDemand demand;
    for (const auto& container : pod_spec.value("containers", Json::array())) {
        const Json resources = container.value("resources", Json::object());
        const Json requests = resources.value("requests", Json::object());
        const Json limits = resources.value("limits", Json::object());
        // A container that sets only a limit gets a request equal to it.
        const auto get = [&](const char* name) -> double {
            const Json& source = requests.contains(name) ? requests : limits;
            if (!source.contains(name)) {
                return 0;
            }
            return ParseQuantity(source[name]).value_or(0);
        };
        demand.cpu += get("cpu");
        demand.memory_mb += get("memory") / 1048576.0;
        demand.gpus += static_cast<int>(std::lround(get("nvidia.com/gpu")));
    }
    return demand;
}

}  // namespace orch::sim
