#pragma once

#include "connectors/connector.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::connectors {

// A site's own change notifications (Marathon's event stream, Kubernetes watches), read by the
// workflow's SiteWatcher to make a deployment's next poll due at once. Everything read from a
// site is bounded here: a line or event over its bound is skipped whole, never buffered.

/// Splits a byte stream into lines ("\n", a trailing "\r" removed) of at most `max_line` bytes.
class LineSplitter {
   public:
    explicit LineSplitter(std::size_t max_line) : max_line_(max_line) {}
    void Feed(std::string_view bytes, const std::function<void(std::string_view line)>& on_line);
    std::size_t dropped() const { return dropped_; }  ///< lines skipped for their length

   private:
    std::size_t max_line_;
    std::string partial_;
    bool skipping_ = false;  // inside a line already over the bound: drop up to its end
    std::size_t dropped_ = 0;
};

/// One Server-Sent Event (the `event`, joined `data` and `id` fields).
struct SseEvent {
    std::string type;
    std::string data;
    std::string id;
};

/// Server-Sent Events (text/event-stream): fields per line, an event per blank line. An event
/// whose data passes `max_event` bytes is dropped whole.
class SseParser {
   public:
    SseParser(std::size_t max_line, std::size_t max_event) : lines_(max_line), max_event_(max_event) {}
    void Feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event);
    std::size_t dropped() const { return dropped_ + lines_.dropped(); }

   private:
    void Line(std::string_view line, const std::function<void(const SseEvent&)>& on_event);

    LineSplitter lines_;
    std::size_t max_event_;
    SseEvent current_;
    bool oversized_ = false;
    std::size_t dropped_ = 0;
};

/// What one notification says changed on the site.
struct SiteChange {
    std::vector<std::string> resources;  ///< site-side names: Marathon group ids, Kubernetes namespaces
    std::string resource_version;        ///< Kubernetes: where to resume the watch from
    bool expired = false;                ///< Kubernetes: the resumed-from version is gone (410)
};

/// The Marathon groups (handle physical ids, "/<deployment>") an event is about:
/// status_update_event and health_status_changed_event (their appId) and deployment_success /
/// deployment_failed (the apps of the plan's steps, at most 64). Any other event, or data that
/// is not such JSON: nothing.
SiteChange MarathonEventChange(const SseEvent& event);

/// One line of a Kubernetes watch ({"type", "object"}): the object's namespace and
/// resourceVersion; an ERROR with code 410 is `expired`. Not such JSON: nullopt.
std::optional<SiteChange> KubernetesWatchChange(std::string_view line);

/// The streams a subscriber keeps open on a site of `kind` (paths relative to its endpoint;
/// a Kubernetes path gets "&resourceVersion=..." appended to resume); none for other kinds.
std::vector<std::string> SiteWatchPaths(TargetKind kind);

}  // namespace orch::connectors
