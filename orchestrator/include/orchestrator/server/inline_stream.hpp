#pragma once

#include "orchestrator/server/response_stream.hpp"

#include <string>

namespace orch::server {

/// A stream that can write some of its chunks on the I/O thread: what it already holds in memory
/// (a keep-alive; for the event streams, news already in the process's event window). Without
/// it, every chunk is a trip to the worker pool: with a thousand streams, one such trip (two
/// thread wake-ups) per stream at each heartbeat and at each new event, all due at the same
/// ticks, queued ahead of the other requests' handlers. The server asks it when Idle() said no,
/// before sending the stream to Next.
class InlineStream : public ResponseStream {
   public:
    /// When what Next would send now is in memory: appends it to `out` (possibly nothing, when
    /// the news was other streams') and returns true, and Next is skipped this time. Otherwise
    /// false, and Next is called as usual. On the I/O thread: must not block (short locks only).
    virtual bool WriteInline(std::string& out) = 0;
};

}  // namespace orch::server
