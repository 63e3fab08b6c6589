#pragma once

// One admission cycle: which waiting GPU requests start now, and where (docs/admission.md,
// "Admission cycle: reservation, backfill, cohorts"). Pure: no clock, no store; the caller passes
// the fair-share order (FairShareOrder), the sites' free GPUs, what runs and the cohort limits.
#include "orchestrator/workflow/fair_share.hpp"

#include <chrono>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::workflow {

/// A site's GPUs (weighted by class like the demands).
struct SiteGpus {
    double capacity = 0;
    double free = 0;
};

/// A deployment holding GPUs on a site, and when it is expected to release them (nullopt: not
/// known, so never counted on to release).
struct RunningGpus {
    std::size_t site = 0;
    double gpus = 0;
    std::optional<std::chrono::system_clock::time_point> ends_at;
};

/// A group's GPU quota in its cohort (Kueue's ClusterQueue in a cohort). It may use its
/// `nominal` GPUs, and up to `borrowing_limit` more of what the other groups lend; it lends at
/// most `lending_limit` of its nominal (the rest is kept for it whatever the others want).
struct CohortQuota {
    static constexpr double kUnlimited = std::numeric_limits<double>::infinity();
    double nominal = 0;
    double borrowing_limit = kUnlimited;
    double lending_limit = kUnlimited;
};

struct CycleInput {
    const std::vector<WaitingRequest>* waiting = nullptr;
    std::vector<std::size_t> order;  ///< indexes of `waiting`, FairShareOrder's result
    std::vector<SiteGpus> sites;
    std::vector<RunningGpus> running;
    /// The groups of one cohort with their quotas; a group not listed is not limited here (its
    /// quota counters still are, at commit).
    std::map<std::string, CohortQuota, std::less<>> cohort;
    /// GPUs each group holds now (counted against the cohort quotas).
    std::map<std::string, double, std::less<>> held;
    std::chrono::system_clock::time_point now;
};

struct Admitted {
    std::size_t request = 0;  ///< index into `waiting`
    std::size_t site = 0;
    bool borrowed = false;    ///< it uses GPUs lent by another group of the cohort
    bool backfilled = false;  ///< it went ahead of the reserved head
};

struct CycleResult {
    std::vector<Admitted> admitted;  ///< in admission order
    /// The first request in the order that is within quota but fits no site now: it holds a
    /// reservation that later requests may not delay.
    std::optional<std::size_t> head;
    /// When and where the head is expected to start (from the running deployments' estimated
    /// ends); nullopt when some release it needs has no estimate: then nothing else starts on a
    /// site large enough for it.
    std::optional<std::chrono::system_clock::time_point> head_start;
    std::optional<std::size_t> head_site;
};

/// Walks `order` twice, placing each GPU request on the site with the fewest free GPUs that fit
/// (best fit):
///  1. requests within their group's nominal quota (a lender's own requests come first);
///  2. then requests that must borrow, while the cohort has unused lendable quota, and only when
///     no request of pass 1 waits for the cohort's quota (a lender waiting for its lent GPUs).
/// The first request that is within quota but fits nowhere becomes the head and gets a
/// reservation: on the site where it can start soonest given the running deployments' estimated
/// ends. A later request may start on that site only if it ends (now + its estimate) before the
/// head's start, or if it fits in the GPUs the head leaves free there (conservative toward the
/// head: it never starts later than its estimate). Without a start estimate for the head, no
/// later request starts on a site whose capacity could hold the head. Requests without GPUs are
/// skipped (placement admits them). O(n log s) for n requests and s sites, plus O(r log r) for
/// the r running deployments.
CycleResult AdmissionCycle(const CycleInput& input);

}  // namespace orch::workflow
