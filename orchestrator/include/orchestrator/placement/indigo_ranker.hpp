#pragma once

#include "cmdb/sla.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace orch::placement {

/// The input of the original Cloud Provider Ranker (CPR v0.7.0 `/rank`), after pre-filtering.
struct CprPriority {
    std::string service_type;  ///< the preference's service_type (compute | storage)
    std::string sla_id;
    std::string service_id;
    std::optional<double> weight;
};

struct CprMonitoredService {
    std::string service_id;
    std::string type;       ///< monitoring service category (= CMDB service_type)
    std::string parent_id;  ///< service_parent_id when given
    std::vector<std::pair<std::string, double>> metrics;
};

struct CprMonitoring {
    std::string provider;
    std::vector<CprMonitoredService> services;
};

struct CprInput {
    std::vector<CprPriority> priorities;
    std::vector<cmdb::Sla> slas;
    std::vector<CprMonitoring> monitoring;
};

/// One record of the ranker's answer.
struct CprRecord {
    std::string provider;
    std::string service_id;
    std::optional<double> sla_weight;
    std::optional<double> sla_score;      ///< null when the service has no SLA targets
    std::optional<double> metrics_score;  ///< null when no metrics rule fired
    double parent_score = 0;              ///< parent's SLA + metrics score
    double total = 0;
    bool ranked = false;
    int rank = -1;  ///< 1 = best; -1 when not ranked
};

/// The CPR v0.7.0 algorithm: SLA score (computing_time × 0.0166, public_ip × 1, other types
/// keep the previous factor) + metrics score (100/create + 100/run + 10/delete response times for
/// OpenStack/Marathon/Chronos; free Mesos memory in GB) + the parent's scores; ranked when the
/// total is not 0 and the service has an SLA; sorted by weight, then total. Ties, arbitrary
/// upstream, go to the smaller service id. Records come back in the ranker's answer order
/// (ascending: the best is last). Fails as CPR does (HTTP 500 there): an unknown SLA or SLA
/// service, a missing weight, a duplicate metric name.
Result<std::vector<CprRecord>> RankIndigo(const CprInput& input);

/// Reads a CPR `/rank` request body.
Result<CprInput> ParseCprRequest(const Json& body);
/// Writes the CPR `/rank` answer: [{provider, service_id, sla_weight, total_score, rank, ranked}].
Json CprResponseToJson(const std::vector<CprRecord>& records);

}  // namespace orch::placement
