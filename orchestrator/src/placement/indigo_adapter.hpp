#pragma once

#include "evaluation.hpp"
#include "monitoring/signals.hpp"

#include <vector>

namespace orch::placement {

/// Ranks the accepted services exactly as the original Cloud Provider Ranker would, from the
/// request ORCH would have sent it (priorities of the accepted services, the SLAs of their
/// providers, the monitoring of those providers). Sorts `accepted` best first; services the
/// ranker leaves unranked are rejected with the reason. Returns a note when the ranker fails.
std::vector<std::string> RankIndigoMode(
    std::vector<Evaluation*>& accepted,
    const cmdb::SlaSet& slas,
    const cmdb::Catalogue& catalogue,
    const monitoring::Snapshot& snapshot
);

}  // namespace orch::placement
