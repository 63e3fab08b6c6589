#include "orchestrator/placement/indigo_ranker.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace orch::placement {
namespace {

// The factors are the constants of CPR's SlaScoreRule.drl and MetricsScoreRule.drl.
constexpr double kComputingTimeFactor = 0.0166;
constexpr double kPublicIpFactor = 1.0;

struct Work {
    CprRecord record;
    const std::vector<cmdb::SlaTarget>* targets = nullptr;
    std::string type;
    std::string parent_id;
    std::map<std::string, double> metrics;
};

double SlaScore(const std::vector<cmdb::SlaTarget>& targets) {
    double factor = 1.0;  // an unknown type keeps the previous target's factor, as the DRL does
    double score = 0;
    for (const auto& target : targets) {
        if (target.type == "computing_time") {
            factor = kComputingTimeFactor;
        } else if (target.type == "public_ip") {
            factor = kPublicIpFactor;
        }
        const auto& r = target.restrictions;
        double sum = 0;
        for (const auto& value :
             {r.total_guaranteed,
              r.total_limit,
              r.user_guaranteed,
              r.user_limit,
              r.instance_guaranteed,
              r.instance_limit}) {
            sum += value.value_or(0.0);
        }
        score += factor * sum;
    }
    return score;
}

// One probe term: `scale`/time when the operation succeeded; nullopt when a metric is missing,
// which in CPR throws inside the rule and keeps the score computed so far.
std::optional<double> ProbeTerm(const std::map<std::string, double>& metrics, const std::string& op, double scale) {
    const auto result = metrics.find(op + "_result");
    const auto time = metrics.find(op + "_responseTime");
    if (result == metrics.end() || time == metrics.end()) {
        return std::nullopt;
    }
    return result->second == 1.0 && time->second != 0.0 ? scale / time->second : 0.0;
}

std::optional<double> MetricsScore(const std::string& type, const std::map<std::string, double>& metrics) {
    if (metrics.empty()) {
        return std::nullopt;
    }
    if (type == "org.openstack.nova" || type == "eu.indigo-datacloud.marathon" ||
        type == "eu.indigo-datacloud.chronos") {
        double score = 0;
        for (const auto& [op, scale] :
             {std::pair{"create", 100.0}, std::pair{"run", 100.0}, std::pair{"delete", 10.0}}) {
            const auto term = ProbeTerm(metrics, op, scale);
            if (!term) {
                break;
            }
            score += *term;
        }
        return score;
    }
    if (type == "eu.indigo-datacloud.mesos") {
        // CPR reads master.cpu_* / master.gpu_*, which the probe never emits (it sends cpus_/gpus_):
        // only free memory in GB ever counts. Reproduced on purpose.
        auto get = [&](const char* name) {
            const auto it = metrics.find(name);
            return it == metrics.end() ? 0.0 : it->second;
        };
        return (get("master.cpu_total") - get("master.cpu_used")) + (get("master.gpu_total") - get("master.gpu_used")) +
               (get("master.mem_total") - get("master.mem_used")) / 1024.0;
    }
    return std::nullopt;
}

Status AddPriorities(const CprInput& input, std::map<std::string, Work>& records) {
    std::unordered_map<std::string, const cmdb::Sla*> slas;
    for (const auto& sla : input.slas) {
        slas.emplace(sla.id, &sla);
    }
    for (const auto& priority : input.priorities) {
        const auto found = slas.find(priority.sla_id);
        const cmdb::Sla* sla = found == slas.end() ? nullptr : found->second;
        if (sla == nullptr) {
            return Error::InvalidArgument("ranker: SLA " + priority.sla_id + " not found");
        }
        const cmdb::SlaService* service = nullptr;
        for (const auto& candidate : sla->services) {
            if (candidate.service_id == priority.service_id) {
                service = &candidate;
            }
        }
        if (service == nullptr) {
            return Error::InvalidArgument("ranker: service " + priority.service_id + " not found in SLA " + sla->id);
        }
        if (!priority.weight) {
            return Error::InvalidArgument("ranker: priority of service " + priority.service_id + " has no weight");
        }
        auto& work = records[priority.service_id];
        work.record.service_id = priority.service_id;
        work.record.provider = sla->provider;
        work.record.sla_weight = priority.weight;
        work.targets = &service->targets;
    }
    return Ok();
}

Status AddMonitoring(const CprInput& input, std::map<std::string, Work>& records) {
    for (const auto& provider : input.monitoring) {
        for (const auto& service : provider.services) {
            auto& work = records[service.service_id];
            work.record.service_id = service.service_id;
            work.record.provider = provider.provider;
            work.type = service.type;
            work.parent_id = service.parent_id;
            for (const auto& [name, value] : service.metrics) {
                if (!work.metrics.emplace(name, value).second) {
                    return Error::InvalidArgument(
                        "ranker: duplicate metric " + name + " for service " + service.service_id
                    );
                }
            }
        }
    }
    return Ok();
}

// Wrong JSON kinds throw (Json::value on a non-object); ParseCprRequest turns that into an error.
Result<CprInput> ParseCprRequestUnchecked(const Json& body) {
    CprInput input;
    Json slam = Json::object();
    slam["preferences"] = Json::array({Json{{"preferences", body.value("preferences", Json::array())}}});
    slam["sla"] = body.value("sla", Json::array());
    auto slas = cmdb::ParseSlamPreferences(slam, "");
    if (!slas) {
        return std::move(slas).error();
    }
    for (const auto& preference : slas->preferences) {
        for (const auto& priority : preference.priority) {
            input.priorities.push_back({preference.service_type, priority.sla_id, priority.service_id, priority.weight}
            );
        }
    }
    input.slas = slas->slas;
    for (const auto& provider : body.value("monitoring", Json::array())) {
        CprMonitoring monitoring{provider.value("provider", ""), {}};
        for (const auto& service : provider.value("services", Json::array())) {
            CprMonitoredService entry{
                service.value("service_id", ""), service.value("type", ""), service.value("service_parent_id", ""), {}};
            for (const auto& metric : service.value("metrics", Json::array())) {
                if (metric.contains("metricValue") && metric["metricValue"].is_number()) {
                    entry.metrics.emplace_back(metric.value("metricName", ""), metric["metricValue"].get<double>());
                }
            }
            monitoring.services.push_back(std::move(entry));
        }
        input.monitoring.push_back(std::move(monitoring));
    }
    return input;
}

}  // namespace

Result<std::vector<CprRecord>> RankIndigo(const CprInput& input) {
    std::map<std::string, Work> records;
    ORCH_RETURN_IF_ERROR(AddPriorities(input, records));
    ORCH_RETURN_IF_ERROR(AddMonitoring(input, records));
    for (auto& [id, work] : records) {
        if (work.targets != nullptr) {
            work.record.sla_score = SlaScore(*work.targets);
        }
        work.record.metrics_score = MetricsScore(work.type, work.metrics);
    }
    std::vector<CprRecord> out;
    out.reserve(records.size());
    for (auto& [id, work] : records) {
        auto& record = work.record;
        if (const auto parent = records.find(work.parent_id); !work.parent_id.empty() && parent != records.end()) {
            record.parent_score =
                parent->second.record.sla_score.value_or(0) + parent->second.record.metrics_score.value_or(0);
        }
        record.total = record.sla_score.value_or(0) + record.metrics_score.value_or(0) + record.parent_score;
        record.ranked = record.total != 0 && record.sla_score.has_value();
        out.push_back(record);
    }
    std::sort(out.begin(), out.end(), [](const CprRecord& a, const CprRecord& b) {
        const double wa = a.sla_weight.value_or(0);
        const double wb = b.sla_weight.value_or(0);
        if (wa != wb) {
            return wa < wb;
        }
        if (a.total != b.total) {
            return a.total < b.total;
        }
        return a.service_id > b.service_id;  // ascending list: the smaller id ends up ranked better
    });
    int next = static_cast<int>(std::count_if(out.begin(), out.end(), [](const CprRecord& r) { return r.ranked; }));
    for (auto& record : out) {
        record.rank = record.ranked ? next-- : -1;
    }
    return out;
}

Result<CprInput> ParseCprRequest(const Json& body) {
    if (!body.is_object()) {
        return Error::InvalidArgument("ranker request must be a JSON object");
    }
    try {
        return ParseCprRequestUnchecked(body);
    } catch (const Json::exception& e) {
        return Error::InvalidArgument(std::string("ranker request is malformed: ") + e.what());
    }
}

Json CprResponseToJson(const std::vector<CprRecord>& records) {
    Json out = Json::array();
    for (const auto& record : records) {
        out.push_back({
            {"provider", record.provider},
            {"service_id", record.service_id},
            {"sla_weight", record.sla_weight ? Json(*record.sla_weight) : Json(nullptr)},
            {"total_score", record.total},
            {"rank", record.rank},
            {"ranked", record.ranked},
        });
    }
    return out;
}

}  // namespace orch::placement
