#include "orchestrator/auth/iam_client_store.hpp"

namespace orch::auth {

std::string_view IamClientStateName(IamClientState state) {
    switch (state) {
        case IamClientState::kRegistering:
            return "registering";
        case IamClientState::kRegistered:
            return "registered";
        case IamClientState::kUnconfirmed:
            return "unconfirmed";
    }
    return "registering";
}

std::optional<IamClientState> ParseIamClientState(std::string_view name) {
    for (const auto state : {IamClientState::kRegistering, IamClientState::kRegistered, IamClientState::kUnconfirmed}) {
        if (IamClientStateName(state) == name) {
            return state;
        }
    }
    return std::nullopt;
}

}  // namespace orch::auth
