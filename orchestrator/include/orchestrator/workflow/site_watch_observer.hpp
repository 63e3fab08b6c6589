#pragma once

#include "connectors/connector.hpp"

#include <cstddef>
#include <string_view>

namespace orch::workflow {

/// Why a site's change stream ended (and was opened again).
enum class StreamEnd {
    kClosed,   ///< it worked, then ended (stream life, the site closed it): reopened at once
    kSilent,   ///< it closed without a word: reopened after a backoff
    kRefused,  ///< the site answered something other than 200: after a backoff
    kBroken,   ///< no connection, or it broke: after a backoff
};
std::string_view StreamEndName(StreamEnd end);  ///< "closed", "silent", "refused", "broken"

/// What the SiteWatcher reports as it runs, without knowing who listens (ops turns it into
/// metrics; none: nothing reported). Called from the subscribers' threads: implementations must
/// be thread-safe and quick.
class SiteWatchObserver {
   public:
    virtual ~SiteWatchObserver() = default;
    /// A change stream to a site of `kind` was answered 200 and is open.
    virtual void StreamOpened(connectors::TargetKind kind) = 0;
    /// A stream that was open ended (StreamOpened came first).
    virtual void StreamClosed(connectors::TargetKind kind) = 0;
    /// A stream ended (or could not be opened) and will be opened again, at once or after a backoff.
    virtual void StreamEnded(connectors::TargetKind kind, StreamEnd end) = 0;
    /// A notification from a site of `kind` was read; it made `due` waiting polls due now.
    virtual void Notified(connectors::TargetKind kind, std::size_t due) = 0;
    /// Making a poll due failed in the store (the deployment waits for its own poll).
    virtual void PollNowFailed(connectors::TargetKind kind) = 0;
    /// Lines or events over workflow.site_watch's line bound were skipped.
    virtual void Skipped(connectors::TargetKind kind, std::size_t count) = 0;
};

}  // namespace orch::workflow
