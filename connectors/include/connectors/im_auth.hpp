#pragma once

#include "connectors/connector.hpp"

#include <string>

namespace orch::connectors {

/// IM's `Authorization` header: the auth file on one line, records separated by the two
/// characters `\n`, entries by `; `. First IM's own record (the user's token, or the configured
/// username/password), then one cloud record for `target`, whose type comes from the catalogue
/// property `im_cloud_type` (OpenStack by default; OpenNebula, EC2, EGI): OpenStack takes the
/// user's token through Keystone OIDC (`3.x_oidc_access_token`), an application credential
/// (`3.x_appcred`) or a password (`3.x_password`, `2.0_password` for a /v2.0 Keystone).
/// Values are refused when they could forge another entry or record (';', "\n", line breaks).
ConnectorResult<std::string> ImAuthorization(
    const SiteTarget& target, const std::string& im_username, const std::string& im_password
);

/// The IM cloud type the header names for `target` ("OpenStack", "OpenNebula", "EC2", "EGI").
std::string ImCloudType(const SiteTarget& target);

}  // namespace orch::connectors
