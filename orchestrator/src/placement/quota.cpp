#include "quota.hpp"

#include <algorithm>
#include <sstream>

namespace orch::placement {
namespace {

std::string Number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

std::optional<double> QuotaLimits::*FieldFor(const std::string& type) {
    if (type == "num_cpus") {
        return &QuotaLimits::cpus;
    }
    if (type == "mem_size") {
        return &QuotaLimits::ram_mb;
    }
    if (type == "num_gpus" || type == "gpus") {
        return &QuotaLimits::gpus;
    }
    if (type == "instances") {
        return &QuotaLimits::instances;
    }
    return nullptr;
}

// A num_gpus target naming a class limits that class only, not every GPU.
void AddGpuClass(const cmdb::SlaTarget& target, GroupQuota& quota) {
    const GpuClass gpu_class{target.gpu_class, target.gpu_aliases, target.gpu_vendor, target.gpu_min_memory_mb};
    if (target.restrictions.total_limit) {
        quota.group.gpu_classes.push_back({gpu_class, *target.restrictions.total_limit});
    }
    if (target.restrictions.user_limit) {
        quota.user.gpu_classes.push_back({gpu_class, *target.restrictions.user_limit});
    }
}

// A class the configuration limits by its name alone takes what the catalogue's SLAs declare of
// the class of that name (aliases, vendor, memory), so `V100: 4` in placement.quotas covers
// "Tesla V100-PCIE-32GB" where an SLA says so. The first declaration found wins.
void DeclareClasses(QuotaLimits& limits, const std::vector<GroupQuota>& sla_quotas) {
    for (auto& item : limits.gpu_classes) {
        auto& wanted = item.gpu_class;
        if (!wanted.aliases.empty() || !wanted.vendor.empty() || wanted.min_memory_mb) {
            continue;  // the configuration declared it itself
        }
        for (const auto& quota : sla_quotas) {
            for (const auto* declared : {&quota.group.gpu_classes, &quota.user.gpu_classes}) {
                const auto found = std::find_if(declared->begin(), declared->end(), [&](const GpuClassLimit& c) {
                    return c.gpu_class.name == wanted.name;
                });
                if (found != declared->end()) {
                    wanted = found->gpu_class;
                    break;
                }
            }
            if (!wanted.aliases.empty() || !wanted.vendor.empty() || wanted.min_memory_mb) {
                break;
            }
        }
    }
}

}  // namespace

GroupQuota QuotaCheck::SlaQuotaOf(const Evaluation& eval) const {
    // Worked out once per SLA set by the universe.
    return eval.site->sla_quota < 0 ? GroupQuota{}
                                    : context_.universe->sla_quotas[static_cast<std::size_t>(eval.site->sla_quota)];
}

GroupQuota SlaQuota(const cmdb::SlaService& service) {
    GroupQuota quota;
    for (const auto& target : service.targets) {
        const auto field = FieldFor(target.type);
        if (field == &QuotaLimits::gpus && !target.gpu_class.empty()) {
            AddGpuClass(target, quota);
            continue;
        }
        if (field == nullptr) {
            continue;
        }
        if (target.restrictions.total_limit) {
            quota.group.*field = *target.restrictions.total_limit;
        }
        if (target.restrictions.user_limit) {
            quota.user.*field = *target.restrictions.user_limit;
        }
        if (target.reported_usage) {
            quota.reported.*field = *target.reported_usage;
        }
    }
    return quota;
}

QuotaCheck::QuotaCheck(const PlacementContext& context, UsageSource& usage)
    : context_(context), source_(usage), request_(context.profile.totals) {
    const auto& quotas = context.options.quotas;
    const auto it = quotas.groups.find(context.group);
    configured_ = it != quotas.groups.end() ? it->second : quotas.defaults;
    if (context.universe != nullptr) {
        DeclareClasses(configured_.group, context.universe->sla_quotas);
        DeclareClasses(configured_.user, context.universe->sla_quotas);
    }
}

const Usage* QuotaCheck::LoadUsage() {
    if (!loaded_) {
        loaded_ = true;
        auto usage = source_.ActiveUsage(context_.requester, context_.deployment_id);
        if (usage) {
            usage_ = std::move(usage).value();
        } else {
            usage_error_ = usage.error().message;
        }
    }
    return usage_ ? &*usage_ : nullptr;
}

void QuotaCheck::CheckScope(
    const QuotaLimits& limits,
    const ResourceTotals& used,
    const std::string& who,
    const std::string& where,
    std::vector<std::string>& out,
    bool& never,
    const QuotaLimits& reported
) {
    struct Item {
        std::optional<double> limit;
        double in_use;
        double asked;
        const char* what;
        std::optional<double> reported;
    };
    const Item items[] = {
        {limits.gpus, static_cast<double>(used.gpus), static_cast<double>(request_.gpus), "GPUs", reported.gpus},
        {limits.cpus, used.cpus, request_.cpus, "CPUs", reported.cpus},
        {limits.ram_mb,
         static_cast<double>(used.ram_mb),
         static_cast<double>(request_.ram_mb),
         "MB of memory",
         reported.ram_mb},
        {limits.instances,
         static_cast<double>(used.instances),
         static_cast<double>(request_.instances),
         "instances",
         reported.instances},
    };
    for (const auto& item : items) {
        // The site's own count also sees what was created outside the orchestrator; ours sees
        // what the site has not reported yet. Either alone may be low, so the larger one counts.
        const bool site_count = item.reported && *item.reported > item.in_use;
        const double in_use = site_count ? *item.reported : item.in_use;
        if (!item.limit || item.asked <= 0 || in_use + item.asked <= *item.limit) {
            continue;
        }
        never = never || item.asked > *item.limit;
        out.push_back(
            "quota exceeded: " + who + " may use " + Number(*item.limit) + " " + item.what + where + "; " +
            Number(in_use) + (site_count ? " are in use as the site reports" : " are in use by active deployments") +
            " and this deployment needs " + Number(item.asked) + " more"
        );
    }
}

void QuotaCheck::Check(Evaluation& eval) {
    const auto& options = context_.options.quotas;
    never_fits_ = false;
    if (!options.enabled) {
        return;
    }
    const GroupQuota sla = SlaQuotaOf(eval);
    const bool configured = !configured_.group.empty() || !configured_.user.empty();
    if (!configured && sla.group.empty() && sla.user.empty()) {
        return;
    }
    const Usage* usage = LoadUsage();
    if (usage == nullptr) {
        eval.Reject("quota could not be checked: usage of active deployments is unavailable (" + usage_error_ + ")");
        never_fits_ = true;  // not a full quota: waiting is not what helps
        return;
    }
    if (configured && !global_done_) {
        const std::string group = "group '" + context_.group + "'";
        global_done_ = true;
        CheckScope(configured_.group, usage->group, group, "", global_reasons_, global_never_fits_);
        CheckScope(configured_.user, usage->user, "you", " in " + group, global_reasons_, global_never_fits_);
        // Configured class limits (placement.quotas.*.gpu_classes): a request larger than one by
        // itself never fits; a class that is only full now queues it at admission.
        const bool never_before = never_fits_;
        never_fits_ = false;
        CheckGpuClasses(configured_.group.gpu_classes, group, "", global_reasons_);
        CheckGpuClasses(configured_.user.gpu_classes, "you", " in " + group, global_reasons_);
        global_never_fits_ = global_never_fits_ || never_fits_;
        never_fits_ = never_before;
    }
    never_fits_ = global_never_fits_;
    for (const auto& reason : global_reasons_) {
        eval.Reject(reason);
    }
    if (sla.group.empty() && sla.user.empty()) {
        return;
    }
    const std::string group = "group '" + context_.group + "'";
    const auto by_service = [&](const std::map<std::string, ResourceTotals>& map) {
        const auto it = map.find(std::string(eval.service_id()));
        return it == map.end() ? ResourceTotals{} : it->second;
    };
    const std::string where = " on this service (SLA " + std::string(eval.sla_id()) + ")";
    std::vector<std::string> reasons;
    CheckScope(sla.group, by_service(usage->group_by_service), group, where, reasons, never_fits_, sla.reported);
    CheckScope(sla.user, by_service(usage->user_by_service), "you", where, reasons, never_fits_);
    CheckGpuClasses(sla.group.gpu_classes, group, where, reasons);
    CheckGpuClasses(sla.user.gpu_classes, "you", where, reasons);
    for (auto& reason : reasons) {
        eval.Reject(std::move(reason));
    }
}

void QuotaCheck::CheckGpuClasses(
    const std::vector<GpuClassLimit>& limits,
    const std::string& who,
    const std::string& where,
    std::vector<std::string>& out
) {
    // Usage per class is not summed here: admission checks it atomically when it reserves
    // (workflow/admission.hpp) and queues the request when the class is full. What placement
    // can tell at once is a request larger than the class limit by itself: it never fits.
    for (const auto& item : limits) {
        const int asked = GpusOfClass(context_.spec, item.gpu_class);
        if (asked > 0 && asked > item.limit) {
            never_fits_ = true;
            out.push_back(
                "quota exceeded: " + who + " may use " + Number(item.limit) + " × " + item.gpu_class.name + where +
                " and this deployment needs " + std::to_string(asked)
            );
        }
    }
}

}  // namespace orch::placement
