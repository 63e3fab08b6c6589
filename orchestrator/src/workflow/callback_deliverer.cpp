#include "orchestrator/workflow/callback_deliverer.hpp"

#include "common/log.hpp"
#include "steps_common.hpp"

namespace orch::workflow {

std::string_view CallbackOutcomeName(CallbackOutcome outcome) {
    switch (outcome) {
        case CallbackOutcome::kDelivered:
            return "delivered";
        case CallbackOutcome::kFailed:
            return "failed";
        case CallbackOutcome::kAbandoned:
            return "abandoned";
        case CallbackOutcome::kRefused:
            return "refused";
        case CallbackOutcome::kDropped:
            return "dropped";
    }
    return "failed";
}

CallbackDeliverer::CallbackDeliverer(StepServices& services, CallbackDelivererOptions options)
    : s_(services),
      options_(std::move(options)),
      // Well beyond what one POST may take (its timeout), so a live worker never loses its
      // delivery to another; a killed one's delivery is taken over this long after the kill.
      lease_(2 * services.options.callback_timeout + std::chrono::seconds(5)) {}

CallbackDeliverer::~CallbackDeliverer() {
    Stop();
}

void CallbackDeliverer::Start() {
    stop_ = false;
    for (int i = 0; i < options_.workers; ++i) {
        threads_.emplace_back([this] { Work(); });
    }
}

void CallbackDeliverer::Stop() {
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) {
        t.join();
    }
    threads_.clear();
}

void CallbackDeliverer::Work() {
    while (!stop_) {
        const auto delivered = DeliverOneDue();
        if (delivered && *delivered) {
            continue;  // there may be more due: no pause
        }
        if (!delivered) {
            ORCH_LOG_WARN("callback outbox unavailable", {{"error", delivered.error().message}});
        }
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, options_.idle_poll, [this] { return stop_.load(); });
    }
}

Result<bool> CallbackDeliverer::DeliverOneDue() {
    ORCH_ASSIGN_OR_RETURN(const auto claimed, s_.store.ClaimCallbacks(options_.owner, 1, lease_));
    if (claimed.empty()) {
        return false;
    }
    Deliver(claimed.front());
    return true;
}

void CallbackDeliverer::Deliver(const CallbackDelivery& d) {
    auto loaded = s_.store.Load(d.deployment_id);
    if (!loaded) {
        Settle(d, "database: " + loaded.error().message);
        return;
    }
    if (!*loaded || !s_.render) {
        ORCH_LOG_WARN("callback dropped: the deployment is gone", {{"deployment", d.deployment_id}});
        Report(d, CallbackOutcome::kDropped);
        (void)s_.store.FinishCallback(d);
        return;
    }
    http::ClientRequest request;
    request.method = "POST";
    request.url = d.url;
    request.headers = {{"Content-Type", "application/json"}};
    request.body = s_.render((*loaded)->deployment).dump();
    request.timeout = s_.options.callback_timeout;
    request.max_response_bytes = 64 * 1024;
    const auto response = s_.http.Send(request);
    if (response && response->status >= 200 && response->status < 300) {
        Report(d, CallbackOutcome::kDelivered);
        if (auto finished = s_.store.FinishCallback(d); !finished) {
            // Delivered but not recorded: it will be sent again (at least once, not exactly once).
            ORCH_LOG_WARN("callback delivered but not recorded", {{"error", finished.error().message}});
        }
        return;
    }
    if (!response && response.error().code == ErrorCode::kPermissionDenied) {
        // Refused by the egress policy (the host resolves to an internal address): retrying
        // cannot change that, and the deployment is not failed for it.
        ORCH_LOG_WARN("callback refused", {{"url", d.url}, {"error", response.error().message}});
        Report(d, CallbackOutcome::kRefused);
        (void)s_.store.FinishCallback(d);
        return;
    }
    Settle(d, response ? "HTTP " + std::to_string(response->status) : response.error().message);
}

// A failed try: again later, unless the delivery ran out of tries or age.
void CallbackDeliverer::Settle(const CallbackDelivery& d, const std::string& why) {
    const auto delay = steps::Backoff(d.attempts, s_.options.callback_max_backoff);
    const auto age = s_.clock.now() - d.created_at;
    if (d.attempts >= s_.options.callback_retries || age + delay > s_.options.callback_max_age) {
        ORCH_LOG_WARN(
            "callback abandoned",
            {{"url", d.url}, {"deployment", d.deployment_id}, {"attempts", d.attempts}, {"error", why}}
        );
        Report(d, CallbackOutcome::kAbandoned);
        (void)s_.store.FinishCallback(d);
        return;
    }
    ORCH_LOG_INFO(
        "callback failed, retrying",
        {{"deployment", d.deployment_id},
         {"attempts", d.attempts},
         {"retry_in_ms", static_cast<std::int64_t>(delay.count())},
         {"error", why}}
    );
    Report(d, CallbackOutcome::kFailed);
    (void)s_.store.RetryCallback(d, delay, "callback failed: " + why);
}

void CallbackDeliverer::Report(const CallbackDelivery& d, CallbackOutcome outcome) {
    if (options_.observer != nullptr) {
        options_.observer->CallbackTried(
            outcome, std::chrono::duration_cast<std::chrono::milliseconds>(s_.clock.now() - d.created_at)
        );
    }
}

}  // namespace orch::workflow
