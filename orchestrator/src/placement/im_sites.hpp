#pragma once

#include <cmdb/site_model.hpp>

#include <string_view>

namespace orch::placement {

/// The IM cloud type ("OpenNebula", "EC2", "EGI" or "OpenStack") of a catalogue IaaS service
/// that no direct connector speaks (OpenNebula, OCCI, EC2, the pre-2019 EGI OpenStack type)
/// but that the catalogue gives an IM endpoint (property `im_endpoint`); empty otherwise.
/// Such a service is a VM site reached only through that IM (docs/connectors-im-ansible.md §1).
std::string_view ImOnlyCloudType(const cmdb::Service& service);

}  // namespace orch::placement
