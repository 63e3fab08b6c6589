#include "orchestrator/auth/jws_algorithm.hpp"

#include <array>
#include <utility>

namespace orch::auth {
namespace {

constexpr std::array<std::pair<std::string_view, JwsAlgorithm>, 8> kNames = {{
    {"RS256", JwsAlgorithm::kRs256},
    {"RS384", JwsAlgorithm::kRs384},
    {"RS512", JwsAlgorithm::kRs512},
    {"PS256", JwsAlgorithm::kPs256},
    {"PS384", JwsAlgorithm::kPs384},
    {"PS512", JwsAlgorithm::kPs512},
    {"ES256", JwsAlgorithm::kEs256},
    {"ES384", JwsAlgorithm::kEs384},
}};

}  // namespace

std::optional<JwsAlgorithm> ParseJwsAlgorithm(std::string_view name) {
    for (const auto& [text, alg] : kNames) {
        if (text == name) {
            return alg;
        }
    }
    return std::nullopt;
}

std::string_view JwsAlgorithmName(JwsAlgorithm alg) {
    for (const auto& [text, value] : kNames) {
        if (value == alg) {
            return text;
        }
    }
    return "?";
}

bool IsForbiddenJwsAlgorithmName(std::string_view name) {
    if (name.size() >= 2 && (name[0] == 'H' || name[0] == 'h') && (name[1] == 'S' || name[1] == 's')) {
        return true;
    }
    if (name.size() != 4) {
        return false;
    }
    auto lower = [](char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    };
    return lower(name[0]) == 'n' && lower(name[1]) == 'o' && lower(name[2]) == 'n' && lower(name[3]) == 'e';
}

}  // namespace orch::auth
