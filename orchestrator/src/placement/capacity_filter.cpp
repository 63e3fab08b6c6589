#include "declared_gpus.hpp"
#include "evaluation.hpp"
#include "gpu_model.hpp"
#include "site_universe.hpp"

#include <algorithm>
#include <sstream>

namespace orch::placement {
namespace {

std::string Describe(const std::map<std::string, int>& by_model) {
    std::string text;
    for (const auto& [model, count] : by_model) {
        text += (text.empty() ? "" : ", ") + std::to_string(count) + " free of model " + model;
    }
    return text.empty() ? "none free" : text;
}

std::string Number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

void CheckGpuLive(
    const GpuNeed& need, const monitoring::Capacity& capacity, const DeclaredGpus& declared, Evaluation& eval
) {
    if (!capacity.free_gpus_by_model.empty()) {
        int available = 0;
        for (const auto& [model, count] : capacity.free_gpus_by_model) {
            available += GpuModelMatches(need.model, model) ? count : 0;
        }
        if (available < need.total) {
            eval.Reject(
                "needs " + DescribeGpuNeed(need) + ", has " + Describe(capacity.free_gpus_by_model) + " (live)"
            );
        }
        eval.fit = std::min(eval.fit, available > 0 ? static_cast<double>(need.total) / available : 0.0);
        return;
    }
    if (!capacity.free_gpus) {
        eval.notes.push_back(Reason::Fixed("free GPUs unknown (no live data); the catalogue's capacity was used"));
        eval.fit = std::min(eval.fit, 0.5);
        return;
    }
    if (!need.model.empty()) {
        std::vector<std::string> models;
        for (const auto& [model, count] : capacity.gpus_by_model) {
            models.push_back(model);
        }
        if (models.empty() && !declared.model.empty()) {
            models.push_back(declared.model);
        }
        const bool any = std::any_of(models.begin(), models.end(), [&](const std::string& m) {
            return GpuModelMatches(need.model, m);
        });
        if (models.empty()) {
            eval.Reject("needs GPU model " + need.model + "; this site does not publish its GPU models");
        } else if (!any) {
            std::string list;
            for (const auto& m : models) {
                list += (list.empty() ? "" : ", ") + m;
            }
            eval.Reject("needs GPU model " + need.model + "; this site has " + list);
        }
    }
    if (*capacity.free_gpus < need.total) {
        eval.Reject("needs " + DescribeGpuNeed(need) + ", has " + std::to_string(*capacity.free_gpus) + " free (live)");
    }
    eval.fit =
        std::min(eval.fit, *capacity.free_gpus > 0 ? static_cast<double>(need.total) / *capacity.free_gpus : 0.0);
}

}  // namespace

void CheckDeclaredCapacity(const PlacementContext& context, Evaluation& eval) {
    if (context.profile.kind == tosca::DeploymentKind::kVirtualMachines ||
        KindOf(eval) == cmdb::ServiceKind::kOpenStack) {
        return;
    }
    const auto& service = *eval.service();
    const DeclaredGpus& declared = eval.site->declared;
    eval.gpu_capable = declared.support;
    if (context.profile.needs_secrets && service.kind == cmdb::ServiceKind::kMarathon &&
        !service.BoolProperty("secrets_support", false)) {
        eval.Reject("does not support secrets for Marathon apps (secrets_support is off)");
    }
    if (context.profile.gpus.empty()) {
        return;
    }
    if (!declared.support) {
        eval.Reject(
            "has no GPUs for " + std::string(KindWords(context.profile.kind)) + " (gpu_support is off in the catalogue)"
        );
        return;
    }
    for (const auto& need : context.profile.gpus) {
        // gpu-aware mode may still learn the models from live inventory (CheckLive decides there).
        if (!need.model.empty() && declared.model.empty() && context.options.mode == PlacementMode::kIndigo) {
            eval.Reject("needs GPU model " + need.model + "; this site does not publish its GPU models");
        }
        if (!need.model.empty() && !declared.model.empty() && !GpuModelMatches(need.model, declared.model)) {
            eval.Reject("needs " + DescribeGpuNeed(need) + ", has GPUs of model " + declared.model);
        }
        if (!need.vendor.empty() && !declared.vendor.empty() && !SameWord(need.vendor, declared.vendor)) {
            eval.Reject("needs " + DescribeGpuNeed(need) + ", has GPUs of vendor " + declared.vendor);
        }
        if (declared.count > 0 && declared.count < need.total) {
            eval.Reject("needs " + DescribeGpuNeed(need) + ", has " + std::to_string(declared.count) + " in total");
        }
    }
}

void CheckLive(const PlacementContext& context, Evaluation& eval) {
    const SiteSignals& found = *eval.live;
    const auto* site = found.site;
    const auto* own = found.own;
    const auto* parent = found.parent;
    eval.up = own != nullptr && own->up ? own->up : (site != nullptr ? site->up : std::nullopt);
    eval.response_ms =
        own != nullptr && own->response_ms ? own->response_ms : (site != nullptr ? site->response_ms : std::nullopt);
    if (site == nullptr) {
        eval.notes.push_back(Reason::Fixed("no monitoring data for this site (availability unknown)"));
    }
    if (eval.up == false) {
        const auto status = own != nullptr ? own->Metric("create_status") : std::nullopt;
        eval.Reject(
            "is down: its last monitoring probe failed" + (status ? " (HTTP " + Number(*status) + ")" : std::string())
        );
    }
    if (context.profile.kind == tosca::DeploymentKind::kVirtualMachines) {
        return;
    }
    const monitoring::Capacity* capacity = nullptr;
    for (const auto* candidate :
         {own != nullptr ? &own->capacity : nullptr,
          parent != nullptr ? &parent->capacity : nullptr,
          site != nullptr ? &site->capacity : nullptr}) {
        if (candidate != nullptr && !candidate->empty()) {
            capacity = candidate;
            break;
        }
    }
    if (context.profile.gpus.empty() && eval.gpu_capable) {
        eval.fit = std::min(eval.fit, 0.5);  // keep GPU clusters for GPU work when a CPU site will do
    }
    const DeclaredGpus& declared = eval.site->declared;
    if (capacity == nullptr) {
        for (const auto& need : context.profile.gpus) {
            if (!need.model.empty() && declared.model.empty()) {
                eval.Reject("needs GPU model " + need.model + "; this site does not publish its GPU models");
            }
        }
        eval.fit = std::min(eval.fit, context.profile.gpus.empty() ? 1.0 : 0.5);
        return;
    }
    eval.free_gpus = capacity->free_gpus;
    for (const auto& need : context.profile.gpus) {
        CheckGpuLive(need, *capacity, declared, eval);
    }
    const auto& totals = context.profile.totals;
    if (capacity->free_cpus && *capacity->free_cpus < totals.cpus) {
        eval.Reject("needs " + Number(totals.cpus) + " CPUs, has " + Number(*capacity->free_cpus) + " free (live)");
    }
    if (capacity->free_mem_mb && *capacity->free_mem_mb < static_cast<double>(totals.ram_mb)) {
        eval.Reject(
            "needs " + std::to_string(totals.ram_mb) + " MB of memory, has " + Number(*capacity->free_mem_mb) +
            " MB free (live)"
        );
    }
}

}  // namespace orch::placement
