#pragma once

#include "common/http_client.hpp"
#include "connectors/connector.hpp"

#include <string>

namespace orch::connectors::openstack {

/// The message inside an OpenStack error body: Nova's {"badRequest": {"message"}},
/// Keystone's {"error": {"message"}}, Glance's plain text, ...; trimmed to a readable size.
std::string ErrorText(const std::string& body);

/// A failure for an HTTP answer that is not what the call expected, as ClassifyHttpStatus
/// decides, except that OpenStack's 404 (a flavor, image or network the catalogue promised is
/// not there) means another site, and 409/413 (a server busy in another task, rate limits) are
/// worth retrying.
Failure ResponseFailure(const http::ClientResponse& response, const std::string& what);

}  // namespace orch::connectors::openstack
