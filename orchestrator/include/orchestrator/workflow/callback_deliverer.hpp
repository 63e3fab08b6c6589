#pragma once

#include "orchestrator/workflow/deployment_steps.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace orch::workflow {

/// How one try of a callback delivery ended.
enum class CallbackOutcome {
    kDelivered,  ///< the receiver answered 2xx
    kFailed,     ///< no 2xx (or no answer): tried again later
    kAbandoned,  ///< failed and out of tries or age: dropped
    kRefused,    ///< the egress policy refused the URL: dropped
    kDropped,    ///< the deployment is gone (or nothing renders it): dropped unsent
};
std::string_view CallbackOutcomeName(CallbackOutcome outcome);  ///< "delivered", "failed", ...

/// What the deliverer reports, for metrics (ops' WorkflowMetrics implements it; main passes it),
/// so the workflow never touches the metrics registry. Called on a deliverer thread: quick, never
/// blocking.
class CallbackObserver {
   public:
    virtual ~CallbackObserver() = default;
    /// A try ended; `age` is how long after the state change it was made.
    virtual void CallbackTried(CallbackOutcome outcome, std::chrono::milliseconds age) = 0;
};

struct CallbackDelivererOptions {
    std::string owner;                         ///< this process in leases (instance id)
    int workers = 2;                           ///< deliveries in flight at once
    std::chrono::milliseconds idle_poll{500};  ///< how often an idle worker looks for due deliveries
    CallbackObserver* observer = nullptr;      ///< none: nothing reported
};

/// Sends the callback outbox (WorkflowStore::ClaimCallbacks): each delivery the workflow queued
/// with a state change is POSTed (the deployment's JSON as it is when sent, as the original does)
/// through the egress-checked client, at least once, by whichever replica claims it. A failed
/// POST is retried with backoff; a delivery is dropped when the egress policy refuses the URL, the
/// deployment is gone, or its tries or age run out (logged). A failing callback never fails the
/// deployment.
class CallbackDeliverer {
   public:
    /// `services` (store, http, clock, render, options) must outlive the deliverer.
    CallbackDeliverer(StepServices& services, CallbackDelivererOptions options);
    ~CallbackDeliverer();
    CallbackDeliverer(const CallbackDeliverer&) = delete;
    CallbackDeliverer& operator=(const CallbackDeliverer&) = delete;

    void Start();
    /// Stops claiming and joins the workers (each finishes the POST it is making).
    void Stop();
    /// Claims one due delivery and makes it on the calling thread; false when none was due.
    /// For tests that drive deliveries one by one on a deliverer that was not started.
    Result<bool> DeliverOneDue();

   private:
    void Work();
    void Deliver(const CallbackDelivery& delivery);
    void Settle(const CallbackDelivery& delivery, const std::string& why);
    void Report(const CallbackDelivery& delivery, CallbackOutcome outcome);

    StepServices& s_;
    CallbackDelivererOptions options_;
    std::chrono::milliseconds lease_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<std::thread> threads_;
};

}  // namespace orch::workflow
