#pragma once

#include "orchestrator/workflow/deployment_steps.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace orch::workflow {

struct CallbackDelivererOptions {
    std::string owner;                         ///< this process in leases (instance id)
    int workers = 2;                           ///< deliveries in flight at once
    std::chrono::milliseconds idle_poll{500};  ///< how often an idle worker looks for due deliveries
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

    StepServices& s_;
    CallbackDelivererOptions options_;
    std::chrono::milliseconds lease_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<std::thread> threads_;
};

}  // namespace orch::workflow
