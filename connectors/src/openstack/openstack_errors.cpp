#include "openstack/openstack_errors.hpp"

#include "connectors/rest_client.hpp"

namespace orch::connectors::openstack {

std::string ErrorText(const std::string& body) {
    auto parsed = ParseJson(body);
    if (parsed && parsed->is_object()) {
        // Nova wraps the message in an object named after the fault (badRequest, itemNotFound,
        // forbidden, conflictingRequest, computeFault, ...); Keystone calls it "error".
        for (const auto& [key, value] : parsed->items()) {
            if (value.is_object() && value.contains("message") && value["message"].is_string()) {
                return ServerMessage(Json{{"message", value["message"]}}.dump());
            }
        }
    }
    return ServerMessage(body);
}

Failure ResponseFailure(const http::ClientResponse& response, const std::string& what) {
    Failure failure = ClassifyHttpStatus(response.status, ErrorText(response.body), what);
    if (response.status == 404) {
        failure.kind = FailureKind::kTryAnotherSite;
    } else if (response.status == 409 || response.status == 413) {
        failure.kind = FailureKind::kRetryHere;
    }
    return failure;
}

}  // namespace orch::connectors::openstack
