#pragma once

#include "common/json.hpp"
#include "connectors/connector.hpp"

#include <string>

namespace orch::connectors::im {

/// The status of an IM VM state: pending → CREATING, running → CONFIGURING,
/// configured → STARTED, unconfigured/failed → ERROR, stopped/off → STOPPED, deleting →
/// DELETING; IM's "unknown" and any other word → kUnknown.
InstanceStatus StatusOf(const std::string& im_state);

/// One VM's record (GET .../vms/<vm>: {"radl": [...]} or the bare list): the TOSCA node it
/// belongs to (the system's id), its state and addresses (an interface on an outbound
/// network is public, the others private).
struct VmRecord {
    std::string node;
    std::string state;
    Json attributes = Json::object();
};
VmRecord ReadVm(const Json& info);

/// The tail of IM's contextualisation log that says why it failed: the last lines, at most
/// `max` characters, starting at a line boundary.
std::string ReasonTail(const std::string& contmsg, std::size_t max = 600);
/// The last line of `contmsg` that is not blank (without its line break); "" when none.
std::string LastLine(const std::string& contmsg);

}  // namespace orch::connectors::im
