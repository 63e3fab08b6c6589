#include "orchestrator/placement/default_placer.hpp"

#include "candidate_builder.hpp"
#include "common/log.hpp"
#include "evaluation.hpp"
#include "gpu_aware_ranker.hpp"
#include "gpu_model.hpp"
#include "indigo_adapter.hpp"
#include "quota.hpp"
#include "site_universe.hpp"
#include "vm_match.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <set>
#include <sstream>
#include <unordered_set>

namespace orch::placement {
namespace {

// Rejections are counted by the filter that gave them (a bounded set), never by their text.
// Counted locally during a placement and reported once at its end: thousands of services may
// be rejected per placement, and the observer (metrics) is not free.
using enum RejectionFilter;

struct RejectionTally {
    std::array<std::size_t, kRejectionFilterCount> counts{};

    void Add(RejectionFilter filter, std::size_t reasons) { counts[static_cast<std::size_t>(filter)] += reasons; }

    void Report(PlacementObserver* observer) const {
        if (observer == nullptr) {
            return;
        }
        for (std::size_t i = 0; i < counts.size(); ++i) {
            if (counts[i] > 0) {
                observer->Rejected(static_cast<RejectionFilter>(i), counts[i]);
            }
        }
    }
};

template <typename Check>
void Filter(RejectionTally& tally, Evaluation& eval, RejectionFilter filter, Check&& check) {
    const auto before = eval.reasons.size();
    check();
    tally.Add(filter, eval.reasons.size() - before);
}

std::string Rfc3339(std::chrono::system_clock::time_point at) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

// The evaluations of one placement, one per site of the universe, in its order. What a
// universe already knows (missing SLA, service not in the catalogue) is rejected here.
std::vector<Evaluation> StartEvaluations(const SiteUniverse& universe) {
    std::vector<Evaluation> evals(universe.sites.size());  // sized once: every Evaluation is large
    for (std::size_t i = 0; i < evals.size(); ++i) {
        const UniverseSite& site = universe.sites[i];
        Evaluation& eval = evals[i];
        eval.site = &site;
        if (site.sla_missing) {
            eval.Reject("its SLA " + std::string(site.sla_id) + " is listed by SLAM but does not exist");
        } else if (site.service == nullptr) {
            eval.Reject("is not in the catalogue (CMDB)");
        }
    }
    return evals;
}

// Whether each of the universe's lists of trusted issuers has the requester's.
std::vector<char> TrustedIdpSets(const SiteUniverse& universe, std::string_view issuer) {
    issuer = TrimSlash(issuer);
    std::vector<char> trusted;
    trusted.reserve(universe.idp_sets.size());
    for (const auto& issuers : universe.idp_sets) {
        trusted.push_back(std::find(issuers.begin(), issuers.end(), issuer) != issuers.end() ? 1 : 0);
    }
    return trusted;
}

// The providers of the services still accepted, once each, in universe order (what monitoring
// is asked about).
std::vector<std::string> SurvivingProviderIds(const SiteUniverse& universe, const std::vector<Evaluation>& evals) {
    std::vector<char> wanted(universe.provider_ids.size(), 0);
    std::vector<std::string> ids;
    for (const auto& eval : evals) {
        if (eval.rejected() || eval.provider_id().empty() || wanted[eval.site->provider_slot] != 0) {
            continue;
        }
        wanted[eval.site->provider_slot] = 1;
        ids.push_back(universe.provider_ids[eval.site->provider_slot]);
    }
    return ids;
}

// Moves the evaluation's reasons into its verdict: evaluations are not used after this.
void FillVerdict(Evaluation& eval, const VerdictNames& names, int rank, SiteVerdict& verdict) {
    // The universe's interned names: no provider or service object touched, no reference counted.
    verdict.provider_id = names.provider_id;
    verdict.provider_name = names.provider_name;
    verdict.service_id = names.service_id;
    verdict.service_type = names.service_type;
    verdict.accepted = rank > 0;
    verdict.reasons = rank > 0 ? std::move(eval.notes) : std::move(eval.reasons);
    verdict.score_breakdown = std::move(eval.breakdown);
    verdict.score = eval.score;
    verdict.rank = rank;
}

// Accepted services first by rank, then the rejected ones in universe order. The evaluations are
// read in their own order and each verdict is written to its place: reading them in rank order
// (scattered in memory) cost a cache miss or two per site.
std::vector<SiteVerdict> MakeVerdicts(
    std::vector<Evaluation>& evals, const std::vector<Evaluation*>& accepted, const SiteUniverse& universe
) {
    std::vector<std::uint32_t> rank_of(evals.size(), 0);
    for (std::size_t i = 0; i < accepted.size(); ++i) {
        rank_of[static_cast<std::size_t>(accepted[i] - evals.data())] = static_cast<std::uint32_t>(i + 1);
    }
    std::vector<SiteVerdict> verdicts(evals.size());
    std::size_t next_rejected = accepted.size();
    for (std::size_t i = 0; i < evals.size(); ++i) {
        const auto rank = rank_of[i];
        FillVerdict(
            evals[i], universe.names[i], static_cast<int>(rank), verdicts[rank > 0 ? rank - 1 : next_rejected++]
        );
    }
    return verdicts;
}

// What every node's flavor look-up needs, prepared once per placement.
struct CompiledNodes {
    std::shared_ptr<const FlavorIndex> index;
    std::vector<FlavorIndex::Query> queries;  ///< per profile node
    std::shared_ptr<const std::vector<NodeFacts>> facts;

    CompiledNodes(const RequestProfile& profile, std::shared_ptr<const FlavorIndex> flavor_index)
        : index(std::move(flavor_index)) {
        auto all = std::make_shared<std::vector<NodeFacts>>();
        for (const auto& need : profile.nodes) {
            queries.push_back(index->Compile(need.ForFlavor()));
            all->push_back({need.node->name, need.node->resources.instance_type, need.ForFlavor()});
        }
        facts = std::move(all);
    }
};

std::string ScoreFormula(const ScoreWeights& w) {
    std::ostringstream text;
    text << "gpu-aware order: open circuit breakers last, then SLA weight, then score = (" << w.fit << " fit + "
         << w.availability << " availability + " << w.success << " success_rate + " << w.latency << " latency) / "
         << (w.fit + w.availability + w.success + w.latency) << ", then service id";
    return text.str();
}

void Append(std::vector<std::string>& notes, const std::vector<std::string>& more) {
    notes.insert(notes.end(), more.begin(), more.end());
}

}  // namespace

std::string_view PlacementModeName(PlacementMode mode) {
    return mode == PlacementMode::kIndigo ? "indigo" : "gpu-aware";
}

DefaultPlacer::DefaultPlacer(
    cmdb::CatalogueSource& catalogue,
    cmdb::SlaSource& slas,
    monitoring::Feed& feed,
    UsageSource& usage,
    SiteHistory& history,
    PlacementOptions options,
    const Clock& clock
)
    : catalogue_(catalogue),
      slas_(slas),
      feed_(feed),
      usage_(usage),
      history_(history),
      options_(std::move(options)),
      clock_(clock),
      universes_(std::make_unique<SiteUniverseCache>()) {}

DefaultPlacer::~DefaultPlacer() = default;

std::size_t DefaultPlacer::universe_builds() const {
    return universes_->builds();
}

std::map<std::string, std::string> DefaultPlacer::ConfigurationEndpoints() const {
    std::map<std::string, std::string> out;
    auto add = [&](const char* key, const std::string& value) {
        if (!value.empty()) {
            out[key] = value;
        }
    };
    add("cmdb_url", catalogue_.Url());
    add("slam_url", slas_.Url());
    add("monitoring_url", feed_.Url());
    out["placement_mode"] = std::string(PlacementModeName(options_.mode));
    return out;
}

Result<PlacementDecision> DefaultPlacer::Place(const PlacementRequest& request) {
    if (request.spec == nullptr) {
        return Error::InvalidArgument("placement needs a deployment specification");
    }
    const auto now = clock_.now();
    PlacementDecision decision;
    decision.mode = std::string(PlacementModeName(options_.mode));
    decision.evaluated_at = Rfc3339(now);
    // First, so the request's target and limits are explained even when no SLA applies.
    Append(decision.notes, LimitNotes(request.limits));
    const std::string group =
        request.requester.user_group.empty() ? options_.default_group : request.requester.user_group;
    if (group.empty()) {
        decision.notes.push_back("the request names no user group and no default group is configured, so no SLA applies"
        );
        return decision;
    }
    auto slas = slas_.ForCaller(group, request.requester.issuer, request.requester.access_token);
    if (!slas) {
        if (slas.error().code != ErrorCode::kNotFound) {
            return std::move(slas).error();
        }
        decision.notes.push_back(slas.error().message);
        return decision;
    }
    Append(decision.notes, slas->notes);
    const auto listed = universes_->For(slas->slas, group);
    auto catalogue = catalogue_.Load(listed->provider_ids);
    if (!catalogue) {
        return std::move(catalogue).error();
    }
    Append(decision.notes, catalogue->notes);

    const RequestProfile profile = BuildProfile(*request.spec);
    const CompiledNodes nodes(profile, flavor_indexes_.For(*catalogue->catalogue));
    const auto universe = universes_->Resolve(listed, *catalogue->catalogue, nodes.index);
    std::vector<Evaluation> evals = StartEvaluations(*universe);
    RejectionTally tally;
    for (const auto& eval : evals) {
        tally.Add(eval.service() == nullptr && !eval.site->sla_missing ? kCatalogue : kSla, eval.reasons.size());
    }
    const std::vector<char> trusted_idp_sets = TrustedIdpSets(*universe, request.requester.issuer);
    ImageMemo images;
    images.by_node.assign(profile.nodes.size(), std::vector<ImageMemo::Entry>(universe->image_sets.size()));
    // Reasons point into these texts instead of copying them, and share this owner (verdicts' names
    // are the universe's interned ones).
    const auto texts =
        std::make_shared<const std::array<std::shared_ptr<const void>, 4>>(std::array<std::shared_ptr<const void>, 4>{
            catalogue->catalogue, slas->slas, nodes.facts, universe});
    const PlacementContext context{
        *request.spec,
        profile,
        request.requester,
        request.deployment_id,
        group,
        *slas->slas,
        *catalogue->catalogue,
        options_,
        nodes.index.get(),
        &nodes.queries,
        nodes.facts.get(),
        &trusted_idp_sets,
        &images,
        universe.get(),
        texts};
    const PolicyScope scope = BuildPolicyScope(*request.spec, *slas->slas, group);
    Append(decision.notes, scope.notes);
    QuotaCheck quota(context, usage_);
    // A VM placement's cost is mostly waiting for each site's flavors: ask for them a few sites ahead.
    constexpr std::size_t kGroupsAhead = 16;
    constexpr std::size_t kRecordsAhead = 4;
    const bool vms = profile.kind == tosca::DeploymentKind::kVirtualMachines && !nodes.queries.empty();
    for (std::size_t i = 0; i < evals.size(); ++i) {
        if (vms && i + kGroupsAhead < evals.size()) {
            nodes.index->PrefetchGroups(universe->sites[i + kGroupsAhead].flavors);
        }
        if (vms && i + kRecordsAhead < evals.size()) {
            nodes.index->PrefetchRecords(universe->sites[i + kRecordsAhead].flavors, nodes.queries.front());
        }
        auto& eval = evals[i];
        if (eval.rejected()) {
            continue;
        }
        Filter(tally, eval, kKind, [&] { CheckKind(context, eval); });
        Filter(tally, eval, kIdentity, [&] { CheckIdentity(context, eval); });
        Filter(tally, eval, kPolicy, [&] {
            CheckPolicies(scope, eval);
            CheckTarget(request.limits, eval);
        });
        Filter(tally, eval, kVmMatch, [&] { CheckVirtualMachines(context, eval); });
        Filter(tally, eval, kCapacity, [&] { CheckDeclaredCapacity(context, eval); });
        const bool passed_static = !eval.rejected();
        Filter(tally, eval, kQuota, [&] { quota.Check(eval); });
        decision.waitable = decision.waitable || (passed_static && eval.rejected() && !quota.never_fits());
    }
    Append(decision.notes, quota.global_reasons());

    auto snapshot = std::make_shared<const monitoring::Snapshot>();
    const auto survivors = SurvivingProviderIds(*universe, evals);
    if (!survivors.empty()) {
        snapshot = feed_.Collect(survivors);
        Append(decision.notes, snapshot->notes);
    }
    if (feed_.Kind() == "none") {
        decision.notes.push_back("no monitoring is configured: availability and live capacity are unknown");
    }
    // Only the live filter reads monitoring, and only for sites still accepted.
    const bool live = options_.mode == PlacementMode::kGpuAware && !survivors.empty();
    const auto signals = live ? universes_->Signals(universe, snapshot) : nullptr;
    std::vector<Evaluation*> accepted;
    accepted.reserve(evals.size());
    constexpr std::size_t kSignalsAhead = 8;  // each site's monitoring data is a cache miss away
    for (std::size_t i = 0; i < evals.size(); ++i) {
        if (live && i + kSignalsAhead < evals.size()) {
            __builtin_prefetch((*signals)[i + kSignalsAhead].site);
            __builtin_prefetch((*signals)[i + kSignalsAhead].own);
        }
        auto& eval = evals[i];
        if (!eval.rejected() && live) {
            eval.live = &(*signals)[i];
            Filter(tally, eval, kMonitoring, [&] { CheckLive(context, eval); });
            decision.waitable = decision.waitable || eval.rejected();  // not free now: it may be later
        }
        if (eval.free_gpus && eval.site->declared.count > 0) {
            decision.gpu_sites.push_back(
                {std::string(eval.service_id()), eval.site->declared.count, std::max(0, *eval.free_gpus)}
            );
        }
        if (!eval.rejected()) {
            accepted.push_back(&eval);
        }
    }
    if (options_.mode == PlacementMode::kIndigo) {
        Append(decision.notes, RankIndigoMode(accepted, *slas->slas, *catalogue->catalogue, *snapshot));
    } else {
        RankGpuAware(accepted, history_, options_, now);
        decision.notes.push_back(ScoreFormula(options_.weights));
    }

    for (std::size_t i = 0; i < accepted.size() && decision.ranked.size() < options_.max_candidates; ++i) {
        decision.ranked.push_back(BuildCandidate(*accepted[i], request.requester));
        const auto sla_quota = accepted[i]->site->sla_quota;
        if (options_.quotas.enabled && sla_quota >= 0) {
            decision.ranked.back().sla_quota = universe->sla_quotas[static_cast<std::size_t>(sla_quota)];
        }
    }
    if (options_.quotas.enabled) {
        decision.configured_quota = quota.configured();
    }
    decision.quota_group = group;
    decision.waitable = decision.waitable && decision.ranked.empty();
    decision.verdicts = MakeVerdicts(evals, accepted, *universe);
    tally.Report(observer_);
    ORCH_LOG_INFO(
        "placement decided",
        {{"group", group},
         {"mode", decision.mode},
         {"considered", static_cast<std::uint64_t>(evals.size())},
         {"accepted", static_cast<std::uint64_t>(accepted.size())},
         {"chosen", decision.ranked.empty() ? std::string() : decision.ranked.front().target.service_id}}
    );
    return decision;
}

}  // namespace orch::placement
