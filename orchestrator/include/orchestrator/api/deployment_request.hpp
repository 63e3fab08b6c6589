#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/server/request.hpp"

#include <optional>
#include <string>

namespace orch::api {

/// The body of POST/PUT /deployments (and POST /placement), validated with the contract's messages.
struct DeploymentRequest {
    std::string template_text;
    Json parameters = Json::object();
    std::string callback;
    domain::RequestOptions options;
    std::optional<std::string> user_group;
    std::optional<domain::TimePoint> expires_at;  ///< `expiresAt`, parsed (not yet checked against a policy)
    Json raw;                                     ///< the whole body, for endpoints that read extra fields (schedules)
};

/// 415 for a non-JSON content type, 400 for a missing/malformed body or a field that breaks the
/// contract's rules (unknown fields are ignored; booleans and integers accept strings).
Result<DeploymentRequest> ParseDeploymentRequest(const server::Request& request);

/// The optional `expiresAt` of a body: an ISO-8601 time with a zone; 400 naming the field otherwise.
Result<std::optional<domain::TimePoint>> ParseExpiresAt(const Json& body);

/// Checks Content-Type is JSON and parses the body as an object (shared by every JSON endpoint).
Result<Json> ParseJsonBody(const server::Request& request);

}  // namespace orch::api
