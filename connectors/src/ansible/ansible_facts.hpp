#pragma once

#include "connectors/contextualiser.hpp"

#include <string>
#include <vector>

namespace orch::connectors::ansible {

/// The facts a configured server reports as attributes of its Compute node, by Ansible's own
/// names (what IM's playbooks read from `hostvars`), plus `num_gpus` and `gpu_model` from
/// `nvidia-smi` when the server has it. Only these keys are kept, each a scalar (a string at
/// most 256 bytes) or, for `gpu_models`, a list of at most 16 such strings.
const std::vector<std::string>& FactNames();

/// A play over every server of the deployment that gathers the facts (setup, bounded by
/// `gather_timeout`) and asks `nvidia-smi` for the GPUs (absent is not a failure), then writes
/// one JSON file per server, `<facts_dir>/<host name>.json`, on the orchestrator: the play's
/// only local task, on a directory of the orchestrator's own choosing.
std::string FactsPlaybookText(const std::string& facts_dir);

/// The facts each host's file holds (at most 16 KiB read per host), filtered to FactNames();
/// a host whose file is missing or malformed has none (null attributes, as before).
std::vector<HostFacts> ReadFacts(const ContextPlan& plan, const std::string& facts_dir);

}  // namespace orch::connectors::ansible
