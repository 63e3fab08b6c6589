#include "orchestrator/api/types_routes.hpp"

#include "tosca/types_profile.hpp"

#include <string>

namespace orch::api {

void RegisterTypesRoutes(server::Router& router) {
    const auto profile = tosca::OrchestratorTypesProfile("v1");
    // The text is compiled in, so the answer is a copy of constant bytes: inline on the I/O thread.
    router.Add(
        "GET",
        std::string(tosca::kTypesProfileV1Path),
        [text = std::string(profile.value_or(""))](const server::Request&) {
            server::Response response;
            response.status = 200;
            response.content_type = "application/yaml";
            response.body = text;
            return response;
        },
        {.inline_on_io_thread = true, .name = "types_profile"}
    );
}

}  // namespace orch::api
