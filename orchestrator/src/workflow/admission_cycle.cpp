#include "orchestrator/workflow/admission_cycle.hpp"

#include <algorithm>
#include <utility>

namespace orch::workflow {
namespace {

using TimePoint = std::chrono::system_clock::time_point;

// The cohort's books: what each group holds and how much of the lendable pool is in use. A
// group's use beyond its guaranteed part (nominal − what it lends) is drawn from the pool, its
// own lendable part included, so a lender whose quota is lent out waits for it to come back.
class CohortBooks {
   public:
    CohortBooks(
        const std::map<std::string, CohortQuota, std::less<>>& quotas,
        const std::map<std::string, double, std::less<>>& held
    )
        : quotas_(quotas) {
        for (const auto& [group, quota] : quotas_) {
            pool_ += Lendable(quota);
            const auto h = held.find(group);
            held_[group] = h == held.end() ? 0.0 : h->second;
            pool_used_ += BeyondGuaranteed(quota, held_[group]);
        }
    }

    /// Within the group's own nominal quota (or not in the cohort at all).
    bool WithinNominal(const std::string& group, double gpus) const {
        const auto q = quotas_.find(group);
        return q == quotas_.end() || held_.at(group) + gpus <= q->second.nominal;
    }

    bool Fits(const std::string& group, double gpus) const {
        const auto q = quotas_.find(group);
        if (q == quotas_.end()) {
            return true;
        }
        const double held = held_.at(group);
        if (held + gpus > q->second.nominal + q->second.borrowing_limit) {
            return false;
        }
        const double drawn = BeyondGuaranteed(q->second, held + gpus) - BeyondGuaranteed(q->second, held);
        return pool_used_ + drawn <= pool_;
    }

    void Take(const std::string& group, double gpus) {
        const auto q = quotas_.find(group);
        if (q == quotas_.end()) {
            return;
        }
        double& held = held_[group];
        pool_used_ += BeyondGuaranteed(q->second, held + gpus) - BeyondGuaranteed(q->second, held);
        held += gpus;
    }

   private:
    static double Lendable(const CohortQuota& q) { return std::clamp(q.lending_limit, 0.0, q.nominal); }
    static double BeyondGuaranteed(const CohortQuota& q, double held) {
        return std::max(0.0, held - (q.nominal - Lendable(q)));
    }

    const std::map<std::string, CohortQuota, std::less<>>& quotas_;
    std::map<std::string, double, std::less<>> held_;
    double pool_ = 0;
    double pool_used_ = 0;
};

// Free GPUs by site, for best fit: the site with the fewest free GPUs that still fit.
class FreeSites {
   public:
    explicit FreeSites(const std::vector<SiteGpus>& sites) {
        for (std::size_t s = 0; s < sites.size(); ++s) {
            free_.push_back(sites[s].free);
            open_.emplace(sites[s].free, s);
        }
    }

    std::optional<std::size_t> BestFit(double gpus) const {
        const auto it = open_.lower_bound(gpus);
        return it == open_.end() ? std::nullopt : std::optional(it->second);
    }

    double Free(std::size_t site) const { return free_[site]; }

    void Take(std::size_t site, double gpus) {
        const bool was_open = Close(site);
        free_[site] -= gpus;
        if (was_open) {
            open_.emplace(free_[site], site);
        }
    }

    /// Takes the site out of best fit (it is held for the head); true when it was open.
    bool Close(std::size_t site) {
        auto [first, last] = open_.equal_range(free_[site]);
        for (auto it = first; it != last; ++it) {
            if (it->second == site) {
                open_.erase(it);
                return true;
            }
        }
        return false;
    }

   private:
    std::vector<double> free_;
    std::multimap<double, std::size_t> open_;
};

// What the cycle has started so far, as running deployments (they release at now + estimate).
struct Reservation {
    std::size_t site = 0;
    std::optional<TimePoint> start;
    double extra = 0;  ///< GPUs the head leaves free on its site at its start
};

// The site where `gpus` can start soonest, counting only releases with an estimate.
std::optional<Reservation> ReserveFor(
    double gpus, const std::vector<RunningGpus>& running, const FreeSites& free, std::size_t site_count
) {
    std::vector<std::vector<std::pair<TimePoint, double>>> releases(site_count);
    for (const auto& r : running) {
        if (r.ends_at && r.site < site_count) {
            releases[r.site].emplace_back(*r.ends_at, r.gpus);
        }
    }
    std::optional<Reservation> best;
    for (std::size_t s = 0; s < site_count; ++s) {
        auto& list = releases[s];
        std::sort(list.begin(), list.end());
        double available = free.Free(s);
        for (const auto& [at, released] : list) {
            available += released;
            if (available >= gpus) {
                if (!best || at < *best->start) {
                    best = Reservation{s, at, available - gpus};
                }
                break;
            }
        }
    }
    return best;
}

class Cycle {
   public:
    explicit Cycle(const CycleInput& in) : in_(in), books_(in.cohort, in.held), free_(in.sites), running_(in.running) {}

    CycleResult Run() {
        std::vector<std::size_t> borrowing;
        for (const auto index : in_.order) {
            const auto& w = (*in_.waiting)[index];
            if (w.demand.gpus <= 0) {
                continue;
            }
            if (books_.WithinNominal(w.group, w.demand.gpus)) {
                Try(index, false);
            } else {
                borrowing.push_back(index);
            }
        }
        // A lender whose request waits for its lent quota to come back must not see a smaller
        // borrower take what came back first: no borrowing while one waits.
        if (!lender_waits_) {
            for (const auto index : borrowing) {
                Try(index, true);
            }
        }
        return std::move(result_);
    }

   private:
    void Try(std::size_t index, bool borrows) {
        const auto& w = (*in_.waiting)[index];
        if (!books_.Fits(w.group, w.demand.gpus)) {
            lender_waits_ = lender_waits_ || !borrows;
            return;  // waits for its cohort's quota; it holds no reservation meanwhile
        }
        std::optional<std::size_t> site = free_.BestFit(w.demand.gpus);
        bool backfilled = false;
        if (result_.head && !site) {
            site = OnHeadSite(w);
            backfilled = site.has_value();
        } else if (result_.head) {
            backfilled = true;
        }
        if (!site) {
            if (!result_.head) {
                Hold(index);
            }
            return;
        }
        books_.Take(w.group, w.demand.gpus);
        free_.Take(*site, w.demand.gpus);
        if (w.estimate) {
            running_.push_back(RunningGpus{*site, w.demand.gpus, in_.now + *w.estimate});
        } else {
            running_.push_back(RunningGpus{*site, w.demand.gpus, std::nullopt});
        }
        result_.admitted.push_back(Admitted{index, *site, borrows, backfilled});
    }

    // The head's site takes a later request only if it cannot delay the head's start.
    std::optional<std::size_t> OnHeadSite(const WaitingRequest& w) {
        if (!reservation_ || free_.Free(reservation_->site) < w.demand.gpus) {
            return std::nullopt;
        }
        if (w.estimate && in_.now + *w.estimate <= *reservation_->start) {
            return reservation_->site;
        }
        if (w.demand.gpus <= reservation_->extra) {
            reservation_->extra -= w.demand.gpus;
            return reservation_->site;
        }
        return std::nullopt;
    }

    void Hold(std::size_t index) {
        const double gpus = (*in_.waiting)[index].demand.gpus;
        result_.head = index;
        reservation_ = ReserveFor(gpus, running_, free_, in_.sites.size());
        if (reservation_) {
            result_.head_start = reservation_->start;
            result_.head_site = reservation_->site;
            free_.Close(reservation_->site);
            return;
        }
        // No estimate says when it could start: every site that could ever hold it is kept.
        for (std::size_t s = 0; s < in_.sites.size(); ++s) {
            if (in_.sites[s].capacity >= gpus) {
                free_.Close(s);
            }
        }
    }

    const CycleInput& in_;
    CohortBooks books_;
    FreeSites free_;
    std::vector<RunningGpus> running_;
    std::optional<Reservation> reservation_;
    bool lender_waits_ = false;
    CycleResult result_;
};

}  // namespace

CycleResult AdmissionCycle(const CycleInput& input) {
    if (input.waiting == nullptr) {
        return {};
    }
    return Cycle(input).Run();
}

}  // namespace orch::workflow
