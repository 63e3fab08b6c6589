#include "topology/topology_checker.hpp"
#include "util/closest_name.hpp"

#include <string_view>
#include <unordered_set>

namespace orch::tosca {
namespace {

// Refusals named one by one; past this, one line counts the rest (a body may hold thousands).
constexpr std::size_t kMaxNamedParameters = 8;
// A parameter name is user text echoed in the answer: shown up to this many bytes.
constexpr std::size_t kMaxShownNameBytes = 64;

std::string Shown(std::string_view name) {
    if (name.size() <= kMaxShownNameBytes) {
        return std::string(name);
    }
    std::size_t cut = kMaxShownNameBytes;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
        --cut;  // not inside a UTF-8 sequence
    }
    return std::string(name.substr(0, cut)) + "...";
}

}  // namespace

void TopologyChecker::CheckUnknownParameters(const Json& user) {
    std::unordered_set<std::string_view> inputs;
    std::vector<std::string_view> input_names;
    for (const auto& input : topology_.inputs) {
        inputs.insert(input.def.name);
        input_names.push_back(input.def.name);
    }
    const bool refuse = options_.unknown_parameters == UnknownParameters::kRefuse;
    std::size_t refused = 0;
    for (const auto& [name, value] : user.items()) {
        if (inputs.contains(name)) {
            continue;
        }
        const bool accepted = accepted_parameters_ != nullptr && accepted_parameters_->is_object() &&
                              accepted_parameters_->contains(name);
        if (!refuse || accepted) {
            if (refuse) {
                accepted_unknown_.push_back(name);
            }
            sink_.AddAt(
                Severity::kWarning,
                DiagnosticCode::kUnknownParameter,
                std::string(kParametersSource),
                {},
                "parameters." + Shown(name),
                "parameter '" + Shown(name) + "' is not an input of the template (ignored)"
            );
            continue;
        }
        if (++refused > kMaxNamedParameters) {
            continue;
        }
        std::string message = "Parameter '" + Shown(name) + "' is not an input of the template";
        if (const auto closest = ClosestName(name, input_names)) {
            message += "; did you mean '" + *closest + "'?";
        }
        sink_.AddAt(
            Severity::kError,
            DiagnosticCode::kUnknownParameter,
            std::string(kParametersSource),
            {},
            "parameters." + Shown(name),
            std::move(message)
        );
    }
    if (refused > kMaxNamedParameters) {
        sink_.AddAt(
            Severity::kError,
            DiagnosticCode::kUnknownParameter,
            std::string(kParametersSource),
            {},
            "parameters",
            "and " + std::to_string(refused - kMaxNamedParameters) +
                " more parameters that are not inputs of the template"
        );
    }
}

}  // namespace orch::tosca
