#include "orchestrator/app/workflow_config.hpp"

#include "orchestrator/app/sla_group_policies.hpp"

#include <cstdlib>
#include <map>

namespace orch::app {

namespace {

// A group's `self_healing: {enabled: ...}` in the SLA file: its deployments' default, which the
// request's `selfHealing` still overrides.
Status ReadSelfHealGroups(const ConfigTree& t, workflow::SelfHealOptions& o) {
    return ForEachSlaGroupSection(
        t,
        "self_healing",
        [&o](const ConfigTree& slas, const std::string& group, const std::string& prefix) -> Status {
            ORCH_ASSIGN_OR_RETURN(const bool enabled, slas.GetBool(prefix + "enabled", o.default_enabled));
            o.enabled_by_group.insert_or_assign(group, enabled);
            return Ok();
        }
    );
}

// A group's share weight: a positive number, bounded so one group cannot be made infinite.
constexpr double kMaxWeight = 1e6;

Result<double> Weight(const std::string& key, const std::string& text) {
    char* end = nullptr;
    const double w = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(w > 0) || w > kMaxWeight) {
        return Error::InvalidArgument("config key '" + key + "': a weight must be a number in (0, 1000000]");
    }
    return w;
}

// A cohort limit: a number of GPUs in [0, 1000000], or absent (unlimited for the borrowing and
// lending limits, 0 for the nominal quota).
Result<double> CohortLimit(const ConfigTree& t, const std::string& key, double fallback) {
    if (!t.Has(key)) {
        return fallback;
    }
    ORCH_ASSIGN_OR_RETURN(const double value, t.GetDouble(key, fallback));
    if (!(value >= 0) || value > kMaxWeight) {
        return Error::InvalidArgument("config key '" + key + "': must be a number of GPUs in [0, 1000000]");
    }
    return value;
}

// workflow.admission_cohorts: {cohort: {group: {nominal, borrowing_limit, lending_limit}}}.
Status ParseCohorts(const ConfigTree& t, workflow::AdmissionCohorts& out) {
    const std::string root = "workflow.admission_cohorts";
    std::map<std::string, std::string> cohort_of;
    for (const auto& cohort : t.ChildKeys(root)) {
        for (const auto& group : t.ChildKeys(root + "." + cohort)) {
            const std::string prefix = root + "." + cohort + "." + group + ".";
            if (!cohort_of.emplace(group, cohort).second) {
                return Error::InvalidArgument(
                    "config key '" + root + "': group '" + group + "' is in two cohorts (" + cohort_of[group] + ", " +
                    cohort + ")"
                );
            }
            workflow::CohortQuota q;
            ORCH_ASSIGN_OR_RETURN(q.nominal, CohortLimit(t, prefix + "nominal", 0));
            ORCH_ASSIGN_OR_RETURN(q.borrowing_limit, CohortLimit(t, prefix + "borrowing_limit", q.borrowing_limit));
            ORCH_ASSIGN_OR_RETURN(q.lending_limit, CohortLimit(t, prefix + "lending_limit", q.lending_limit));
            out.cohorts[cohort][group] = q;
        }
    }
    return Ok();
}

Status ParseFairShare(const ConfigTree& t, workflow::StepOptions& s) {
    const std::string key = "workflow.admission_weights";
    ORCH_ASSIGN_OR_RETURN(const auto weights, t.GetStringMap(key));
    for (const auto& [group, text] : weights) {
        ORCH_ASSIGN_OR_RETURN(s.admission_weights.groups[group], Weight(key + "." + group, text));
    }
    ORCH_ASSIGN_OR_RETURN(
        const double fallback, t.GetDouble("workflow.admission_default_weight", s.admission_weights.default_weight)
    );
    if (!(fallback > 0) || fallback > kMaxWeight) {
        return Error::InvalidArgument("config key 'workflow.admission_default_weight': must be in (0, 1000000]");
    }
    s.admission_weights.default_weight = fallback;
    // A group's own weight in the local SLA file (`<group>.admission.weight`) wins over
    // workflow.admission_weights: the SLA is where a community's share is agreed; the operator's
    // keys stay the fallback (and the only source with SLAM or the Federation Registry).
    ORCH_RETURN_IF_ERROR(ForEachSlaGroupSection(
        t,
        "admission",
        [&s](const ConfigTree& slas, const std::string& group, const std::string& prefix) -> Status {
            const std::string weight_key = prefix + "weight";
            if (!slas.Has(weight_key)) {
                return Ok();
            }
            ORCH_ASSIGN_OR_RETURN(const auto text, slas.GetString(weight_key, ""));
            ORCH_ASSIGN_OR_RETURN(s.admission_weights.groups[group], Weight(weight_key, text));
            return Ok();
        }
    ));
    const std::string gpu_key = "workflow.admission_gpu_weights";
    ORCH_ASSIGN_OR_RETURN(const auto gpu_weights, t.GetStringMap(gpu_key));
    for (const auto& [gpu_class, text] : gpu_weights) {
        ORCH_ASSIGN_OR_RETURN(s.admission_weights.gpu_classes[gpu_class], Weight(gpu_key + "." + gpu_class, text));
    }
    ORCH_ASSIGN_OR_RETURN(s.admission_half_life, t.GetDuration("workflow.admission_half_life", s.admission_half_life));
    ORCH_ASSIGN_OR_RETURN(
        s.admission_fair_share.starvation_age,
        t.GetDuration("workflow.admission_starvation_age", s.admission_fair_share.starvation_age)
    );
    return ParseCohorts(t, s.admission_cohorts);
}

}  // namespace

Status ParseWorkflowConfig(const ConfigTree& t, workflow::EngineOptions& e, workflow::StepOptions& s) {
    ORCH_ASSIGN_OR_RETURN(const auto workers, t.GetInt("workflow.workers", e.workers, 1, 256));
    e.workers = static_cast<int>(workers);
    ORCH_ASSIGN_OR_RETURN(e.lease, t.GetDuration("workflow.lease", e.lease));
    ORCH_ASSIGN_OR_RETURN(e.idle_poll, t.GetDuration("workflow.idle_poll", e.idle_poll));
    ORCH_ASSIGN_OR_RETURN(s.first_poll, t.GetDuration("workflow.first_poll", s.first_poll));
    ORCH_ASSIGN_OR_RETURN(s.max_poll, t.GetDuration("workflow.max_poll", s.max_poll));
    ORCH_ASSIGN_OR_RETURN(s.crash_loop_timeout, t.GetDuration("workflow.crash_loop_timeout", s.crash_loop_timeout));
    ORCH_ASSIGN_OR_RETURN(s.admission_retry, t.GetDuration("workflow.admission_retry", s.admission_retry));
    ORCH_ASSIGN_OR_RETURN(s.admission_max_wait, t.GetDuration("workflow.admission_max_wait", s.admission_max_wait));
    ORCH_ASSIGN_OR_RETURN(s.admission_queue, t.GetBool("workflow.admission_queue", s.admission_queue));
    ORCH_RETURN_IF_ERROR(ParseFairShare(t, s));
    ORCH_ASSIGN_OR_RETURN(const auto retries, t.GetInt("workflow.transient_retries", s.max_transient_retries, 0, 100));
    s.max_transient_retries = static_cast<int>(retries);
    ORCH_ASSIGN_OR_RETURN(const auto callbacks, t.GetInt("workflow.callback_retries", s.callback_retries, 1, 10'000));
    s.callback_retries = static_cast<int>(callbacks);
    ORCH_ASSIGN_OR_RETURN(s.callback_timeout, t.GetDuration("workflow.callback_timeout", s.callback_timeout));
    ORCH_ASSIGN_OR_RETURN(
        s.callback_max_backoff, t.GetDuration("workflow.callback_max_backoff", s.callback_max_backoff)
    );
    ORCH_ASSIGN_OR_RETURN(s.callback_max_age, t.GetDuration("workflow.callback_max_age", s.callback_max_age));
    ORCH_ASSIGN_OR_RETURN(
        s.create_call_timeout, t.GetDuration("workflow.connector_call_timeout", s.create_call_timeout)
    );
    ORCH_ASSIGN_OR_RETURN(const auto sweeps, t.GetInt("workflow.late_sweeps", s.late_sweeps, 0, 20));
    s.late_sweeps = static_cast<int>(sweeps);
    ORCH_ASSIGN_OR_RETURN(s.late_sweep_interval, t.GetDuration("workflow.late_sweep_interval", s.late_sweep_interval));
    if (s.late_sweep_interval < std::chrono::seconds(1)) {
        return Error::InvalidArgument("config key 'workflow.late_sweep_interval': must be at least 1s");
    }
    ORCH_ASSIGN_OR_RETURN(
        const auto provider,
        t.GetInt("workflow.default_provider_timeout_mins", s.default_provider_timeout_mins, 1, 1'000'000)
    );
    s.default_provider_timeout_mins = static_cast<int>(provider);
    ORCH_ASSIGN_OR_RETURN(s.self_heal.default_enabled, t.GetBool("self_healing.default", s.self_heal.default_enabled));
    ORCH_ASSIGN_OR_RETURN(
        s.self_heal.check_interval, t.GetDuration("self_healing.check_interval", s.self_heal.check_interval)
    );
    ORCH_ASSIGN_OR_RETURN(s.self_heal.lost_after, t.GetDuration("self_healing.lost_after", s.self_heal.lost_after));
    ORCH_ASSIGN_OR_RETURN(
        s.self_heal.site_down_after, t.GetDuration("self_healing.site_down_after", s.self_heal.site_down_after)
    );
    ORCH_ASSIGN_OR_RETURN(
        s.self_heal.cleanup_max_backoff,
        t.GetDuration("self_healing.cleanup_max_backoff", s.self_heal.cleanup_max_backoff)
    );
    ORCH_ASSIGN_OR_RETURN(
        s.self_heal.cleanup_max_age, t.GetDuration("self_healing.cleanup_max_age", s.self_heal.cleanup_max_age)
    );
    ORCH_RETURN_IF_ERROR(ReadSelfHealGroups(t, s.self_heal));
    ORCH_ASSIGN_OR_RETURN(e.deleted_retention, t.GetDuration("deployments.deleted_retention", e.deleted_retention));
    ORCH_ASSIGN_OR_RETURN(e.event_retention, t.GetDuration("events.retention", e.event_retention));
    if (e.lease < std::chrono::seconds(1)) {
        return Error::InvalidArgument("config key 'workflow.lease': must be at least 1s");
    }
    return Ok();
}

Result<workflow::SiteWatchOptions> ParseSiteWatchConfig(const ConfigTree& t) {
    workflow::SiteWatchOptions o;
    ORCH_ASSIGN_OR_RETURN(o.enabled, t.GetBool("workflow.site_watch", o.enabled));
    ORCH_ASSIGN_OR_RETURN(
        const auto sites, t.GetInt("workflow.site_watch_max_sites", static_cast<std::int64_t>(o.max_sites), 1, 1024)
    );
    o.max_sites = static_cast<std::size_t>(sites);
    ORCH_ASSIGN_OR_RETURN(o.stream_life, t.GetDuration("workflow.site_watch_stream_life", o.stream_life));
    ORCH_ASSIGN_OR_RETURN(o.max_backoff, t.GetDuration("workflow.site_watch_max_backoff", o.max_backoff));
    if (o.stream_life < std::chrono::seconds(1) || o.max_backoff < std::chrono::seconds(1)) {
        return Error::InvalidArgument(
            "config keys 'workflow.site_watch_stream_life' and 'workflow.site_watch_max_backoff': at least 1s"
        );
    }
    return o;
}

}  // namespace orch::app
