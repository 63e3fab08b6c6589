#include "cmdb/sla.hpp"

namespace orch::cmdb {
namespace {

std::string Text(const Json& object, std::string_view key) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return {};
    }
    return it->is_string() ? it->get<std::string>() : it->dump();
}

Result<std::optional<double>> Number(const Json& object, std::string_view key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return std::optional<double>();
    }
    if (!it->is_number()) {
        return Error::InvalidArgument(where + ": '" + std::string(key) + "' must be a number");
    }
    return std::optional<double>(it->get<double>());
}

Result<Restrictions> ParseRestrictions(const Json& object, const std::string& where) {
    Restrictions out;
    if (!object.is_object()) {
        return out;
    }
    // SLAM writes storage restrictions in camelCase; both spellings are read.
    const std::pair<std::optional<double>*, std::pair<std::string_view, std::string_view>> fields[] = {
        {&out.total_guaranteed, {"total_guaranteed", "totalGuaranteed"}},
        {&out.total_limit, {"total_limit", "totalLimit"}},
        {&out.instance_guaranteed, {"instance_guaranteed", "instanceGuaranteed"}},
        {&out.instance_limit, {"instance_limit", "instanceLimit"}},
        {&out.user_guaranteed, {"user_guaranteed", "userGuaranteed"}},
        {&out.user_limit, {"user_limit", "userLimit"}},
    };
    for (const auto& [slot, names] : fields) {
        for (const auto name : {names.first, names.second}) {
            auto value = Number(object, name, where);
            if (!value) {
                return std::move(value).error();
            }
            if (value->has_value()) {
                *slot = **value;
            }
        }
    }
    return out;
}

// The GPU class members of a num_gpus target (ours; SLAM has none). Bounded: at most 64 aliases
// of at most 256 bytes each.
Status ParseGpuClass(const Json& item, SlaTarget& target, const std::string& where) {
    target.gpu_class = Text(item, "gpu_class");
    target.gpu_vendor = Text(item, "gpu_vendor");
    constexpr std::size_t kMaxAliases = 64;
    constexpr std::size_t kMaxText = 256;
    if (target.gpu_class.size() > kMaxText || target.gpu_vendor.size() > kMaxText) {
        return Error::InvalidArgument(where + ": 'gpu_class' and 'gpu_vendor' are at most 256 bytes");
    }
    if (const auto aliases = item.find("gpu_aliases"); aliases != item.end() && !aliases->is_null()) {
        if (!aliases->is_array() || aliases->size() > kMaxAliases) {
            return Error::InvalidArgument(where + ": 'gpu_aliases' must be a list of at most 64 names");
        }
        for (const auto& alias : *aliases) {
            if (!alias.is_string() || alias.get_ref<const std::string&>().size() > kMaxText) {
                return Error::InvalidArgument(where + ": a GPU alias must be a name of at most 256 bytes");
            }
            target.gpu_aliases.push_back(alias.get<std::string>());
        }
    }
    if (const auto memory = item.find("gpu_min_memory_mb"); memory != item.end() && !memory->is_null()) {
        if (!memory->is_number_integer() || memory->get<std::int64_t>() < 0) {
            return Error::InvalidArgument(where + ": 'gpu_min_memory_mb' must be a whole number of MB");
        }
        target.gpu_min_memory_mb = memory->get<std::uint64_t>();
    }
    const bool declares = !target.gpu_aliases.empty() || !target.gpu_vendor.empty() || target.gpu_min_memory_mb;
    if (declares && target.gpu_class.empty()) {
        return Error::InvalidArgument(where + ": GPU aliases, vendor or memory need a 'gpu_class' name");
    }
    return Ok();
}

Result<SlaService> ParseSlaService(const Json& object, const std::string& sla_id) {
    SlaService service;
    service.type = Text(object, "type");
    service.service_id = Text(object, "service_id");
    const std::string where = "SLA '" + sla_id + "' service '" + service.service_id + "'";
    const auto targets = object.find("targets");
    if (targets == object.end() || !targets->is_array()) {
        return service;
    }
    for (const auto& item : *targets) {
        if (!item.is_object()) {
            return Error::InvalidArgument(where + ": a target must be an object");
        }
        SlaTarget target{Text(item, "type"), Text(item, "unit"), {}};
        auto restrictions = ParseRestrictions(item.value("restrictions", Json::object()), where);
        if (!restrictions) {
            return std::move(restrictions).error();
        }
        target.restrictions = *restrictions;
        ORCH_RETURN_IF_ERROR(ParseGpuClass(item, target, where));
        service.targets.push_back(std::move(target));
    }
    return service;
}

Result<Sla> ParseSla(const Json& object) {
    if (!object.is_object()) {
        return Error::InvalidArgument("SLAM answer: an 'sla' entry must be an object");
    }
    Sla sla{
        Text(object, "id"),
        Text(object, "customer"),
        Text(object, "provider"),
        Text(object, "start_date"),
        Text(object, "end_date"),
        {}};
    const auto services = object.find("services");
    if (services != object.end() && services->is_array()) {
        for (const auto& item : *services) {
            auto service = ParseSlaService(item, sla.id);
            if (!service) {
                return std::move(service).error();
            }
            sla.services.push_back(std::move(service).value());
        }
    }
    return sla;
}

Result<Preference> ParsePreference(const Json& object) {
    Preference preference{Text(object, "service_type"), {}};
    const auto priorities = object.find("priority");
    if (priorities == object.end() || !priorities->is_array()) {
        return preference;
    }
    for (const auto& item : *priorities) {
        if (!item.is_object()) {
            return Error::InvalidArgument("SLAM answer: a priority must be an object");
        }
        auto weight = Number(item, "weight", "priority of '" + Text(item, "service_id") + "'");
        if (!weight) {
            return std::move(weight).error();
        }
        preference.priority.push_back({Text(item, "sla_id"), Text(item, "service_id"), *weight});
    }
    return preference;
}

}  // namespace

void SlaSet::Reindex() {
    by_id_.clear();
    indexed_count_ = slas.size();
    for (std::size_t i = 0; i < slas.size(); ++i) {
        by_id_.emplace(slas[i].id, i);  // the first SLA with an id wins, as a linear search would
    }
}

const Sla* SlaSet::FindSla(const std::string& id) const {
    if (indexed_count_ == slas.size() && !slas.empty()) {
        const auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : &slas[it->second];
    }
    for (const auto& sla : slas) {  // built by hand and not indexed
        if (sla.id == id) {
            return &sla;
        }
    }
    return nullptr;
}

const SlaService* SlaSet::FindSlaService(const std::string& sla_id, const std::string& service_id) const {
    const Sla* sla = FindSla(sla_id);
    if (sla == nullptr) {
        return nullptr;
    }
    for (const auto& service : sla->services) {
        if (service.service_id == service_id) {
            return &service;
        }
    }
    return nullptr;
}

namespace {

Result<LeaseTerms> ParseLeaseTerms(const Json& body, const std::string& customer) {
    LeaseTerms terms;
    const auto lease = body.find("lease");
    if (lease == body.end() || lease->is_null()) {
        return terms;
    }
    if (!lease->is_object()) {
        return Error::InvalidArgument("SLA of '" + customer + "': 'lease' must be an object");
    }
    for (const auto& [name, slot] :
         {std::pair{"default", &terms.default_duration},
          std::pair{"maximum", &terms.maximum_duration},
          std::pair{"action", &terms.action}}) {
        const auto it = lease->find(name);
        if (it == lease->end() || it->is_null()) {
            continue;
        }
        if (!it->is_string()) {
            return Error::InvalidArgument("SLA of '" + customer + "': 'lease." + name + "' must be a string");
        }
        *slot = it->get<std::string>();
    }
    return terms;
}

}  // namespace

Result<SlaSet> ParseSlamPreferences(const Json& body, const std::string& customer) {
    if (!body.is_object()) {
        return Error::InvalidArgument("SLAM answer for '" + customer + "': expected a JSON object");
    }
    SlaSet set;
    set.customer = customer;
    const auto entries = body.find("preferences");
    if (entries != body.end() && entries->is_array()) {
        for (const auto& entry : *entries) {
            const auto inner = entry.is_object() ? entry.find("preferences") : entry.end();
            if (!entry.is_object() || inner == entry.end() || !inner->is_array()) {
                continue;
            }
            for (const auto& item : *inner) {
                auto preference = ParsePreference(item);
                if (!preference) {
                    return std::move(preference).error();
                }
                set.preferences.push_back(std::move(preference).value());
            }
        }
    }
    const auto slas = body.find("sla");
    if (slas != body.end() && slas->is_array()) {
        for (const auto& item : *slas) {
            auto sla = ParseSla(item);
            if (!sla) {
                return std::move(sla).error();
            }
            set.slas.push_back(std::move(sla).value());
        }
    }
    ORCH_ASSIGN_OR_RETURN(set.lease, ParseLeaseTerms(body, customer));
    set.Reindex();
    return set;
}

}  // namespace orch::cmdb
