#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/schedule/file_notification.hpp"
#include "orchestrator/server/router.hpp"

#include <atomic>
#include <mutex>

namespace orch::api {

/// Our extension, not in the original contract: POST /schedules/notifications {"scope","name"}
/// (admin only) announces a new file, standing in for the Rucio STOMP messages the original
/// listened to. Answers 200 with what the notification created; 503 before Start() and while
/// another notification is being processed. An admin's notification fires only the schedules of
/// the admin's issuer (and unowned ones).
class HttpFileNotificationSource final : public schedule::FileNotificationSource {
   public:
    /// Registers the route on `router`; both must outlive the server.
    HttpFileNotificationSource(server::Router& router, ApiContext& ctx);

    void Start(schedule::FileNotificationSink& sink) override { sink_.store(&sink); }
    void Stop() override { sink_.store(nullptr); }

   private:
    Result<server::Response> Handle(const server::Request& request);

    ApiContext& ctx_;
    std::atomic<schedule::FileNotificationSink*> sink_{nullptr};
    std::mutex in_progress_;  ///< held while a notification runs; never waited for
};

}  // namespace orch::api
