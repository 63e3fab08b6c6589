#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "sim/chronos_sim.hpp"
#include "sim/fault_injector.hpp"
#include "sim/im_sim.hpp"
#include "sim/json_schema.hpp"
#include "sim/kubernetes_sim.hpp"
#include "sim/marathon_sim.hpp"
#include "sim/mesos_cluster.hpp"
#include "sim/sim_clock.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"
#include "sim/site_journal.hpp"

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace orch::sim {

enum class SimApi { kMarathon, kChronos, kKubernetes, kIm };

/// "marathon", "chronos", "kubernetes", "im".
std::string_view SimApiName(SimApi api);

/// One simulated site: Marathon and Chronos on a shared Mesos cluster, a Kubernetes cluster and
/// an Infrastructure Manager (IM; VMs and their contextualisation), behind one lock, with authentication, fault
/// injection and the admin endpoints every port serves under /__sim/:
///   GET  /__sim/objects      every object of every simulator (leak checks)
///   GET|POST|DELETE /__sim/faults   list, add (a rule or a list of rules), clear fault rules
///   GET|POST /__sim/clock    read, or advance simulated time ({"advance_seconds": n})
///   GET|PUT  /__sim/capacity Mesos agents and Kubernetes nodes
///   GET|DELETE /__sim/rejections  the last request bodies the simulators refused (4xx)
///   GET  /__sim/traces       the last traceparent headers received ({api, method, path, traceparent})
///   GET  /__sim/health
class SiteSim {
   public:
    SiteSim(SimConfig config, std::shared_ptr<const SchemaSet> schemas);
    ~SiteSim();
    SiteSim(const SiteSim&) = delete;
    SiteSim& operator=(const SiteSim&) = delete;

    /// Builds a site and installs the configuration's initial fault rules.
    static Result<std::unique_ptr<SiteSim>> Create(SimConfig config, std::shared_ptr<const SchemaSet> schemas);

    /// Answers one request arriving on `api`'s port. Thread-safe. The response may ask the
    /// transport to wait (`delay`) or to drop the connection (`reset`).
    SimResponse Handle(SimApi api, const SimRequest& request);

    /// Replays what `journal` holds (the site's state before a restart: site-sim --state-file),
    /// then appends every write the Marathon, Chronos and Kubernetes APIs accept to it. IM is not
    /// journaled: its infrastructure ids are drawn at random, so a replay would not recreate them.
    void AttachJournal(std::unique_ptr<SiteJournal> journal);
    /// A read the simulator makes of itself for its change streams (site_event_feed.hpp):
    /// authenticated like `Handle`, but no fault injected and no trace recorded.
    SimResponse Observe(SimApi api, const SimRequest& request);

    Json Objects();
    Result<FaultRule> AddFault(const Json& rule);
    void ClearFaults();
    void AdvanceClock(double seconds);
    Json Rejections();
    Json Traces();

   private:
    SimResponse Admin(const SimRequest& request);
    SimResponse Dispatch(SimApi api, const SimRequest& request, double now);
    SimResponse GuardedDispatch(SimApi api, const SimRequest& request, double now);
    SimResponse GuardedIm(const SimRequest& request, double now, const FaultRule* fault);
    bool Authorized(const SimRequest& request) const;
    void AdvanceAll(double now);
    void RecordRejection(SimApi api, const SimRequest& request, const SimResponse& response);
    void Journal(SimApi api, const SimRequest& request, const SimResponse& response);

    std::mutex mutex_;
    SimConfig config_;
    std::shared_ptr<const SchemaSet> schemas_;
    SimClock clock_;
    FaultInjector faults_;
    MesosCluster cluster_;
    MarathonSim marathon_;
    ChronosSim chronos_;
    KubernetesSim kubernetes_;
    std::unique_ptr<tosca::TemplateEngine> im_engine_;  ///< parses what IM receives
    ImSim im_;
    std::deque<Json> rejections_;
    std::deque<Json> traces_;               ///< the last kMaxTraces traceparent headers, oldest first
    std::unique_ptr<SiteJournal> journal_;  ///< null: the site keeps nothing across a restart
};

/// An error response in `api`'s own shape (Marathon {"message"}, Chronos text, Kubernetes Status).
SimResponse ApiError(SimApi api, int status, const std::string& message);

}  // namespace orch::sim
