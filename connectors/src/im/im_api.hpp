#pragma once

#include "common/http_client.hpp"
#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"

#include <memory>
#include <string>

namespace orch::connectors::im {

/// The IM REST calls one connector operation makes, with the header and bounds of the call.
class ImApi {
   public:
    ImApi(std::shared_ptr<http::Client> client, std::string endpoint, std::string authorization, CallOptions options);

    /// POST /infrastructures?async=true; the new infrastructure's id.
    ConnectorResult<std::string> Create(const std::string& tosca);
    /// GET .../state; the answer (404 is a response, not a failure).
    ConnectorResult<RestResponse> Get(const std::string& path);
    ConnectorResult<RestResponse> Send(const std::string& method, const std::string& path);
    /// A call whose body is TOSCA (`Content-Type: text/yaml`): AddResources.
    ConnectorResult<RestResponse> SendYaml(const std::string& method, const std::string& path, const std::string& yaml);
    ConnectorResult<Json> GetJson(const std::string& path, std::string_view what);

    Failure StatusFailure(const RestResponse& response, std::string_view what) const;

   private:
    ConnectorResult<RestResponse> Call(const std::string& method, const std::string& path, const std::string* yaml);

    std::shared_ptr<http::Client> client_;
    std::string endpoint_;
    std::string authorization_;
    CallOptions options_;
};

/// The last path segment of IM's answer to a create ({"uri": ...} or a text/uri-list line).
std::string InfrastructureIdFrom(const std::string& body);

}  // namespace orch::connectors::im
