#include "im_sites.hpp"

#include <array>

namespace orch::placement {

std::string_view ImOnlyCloudType(const cmdb::Service& service) {
    if (service.kind != cmdb::ServiceKind::kOtherIaas && service.kind != cmdb::ServiceKind::kCredentialIaas) {
        return {};
    }
    if (service.StringProperty("im_endpoint").empty()) {
        return {};
    }
    // An explicit type wins, but only one whose auth record the IM connector can build
    // (connectors/src/im/im_auth.cpp): an Azure or OCCI site stays unoffered.
    static constexpr std::array<std::string_view, 4> kBuildable{"OpenNebula", "EC2", "EGI", "OpenStack"};
    const std::string declared = service.StringProperty("im_cloud_type");
    for (const auto type : kBuildable) {
        if (declared == type) {
            return type;
        }
    }
    if (!declared.empty()) {
        return {};
    }
    // The catalogue's type names the cloud; EGI FedCloud is chosen only by im_cloud_type (an
    // EGI record names the site, not an endpoint, and the catalogue's type does not say so).
    if (service.service_type.find("opennebula") != std::string::npos) {
        return "OpenNebula";
    }
    if (service.service_type == "com.amazonaws.ec2") {
        return "EC2";
    }
    if (service.service_type == "eu.egi.cloud.vm-management.openstack") {
        return "OpenStack";
    }
    return {};
}

}  // namespace orch::placement
