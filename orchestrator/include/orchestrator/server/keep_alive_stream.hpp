#pragma once

#include "orchestrator/server/response_stream.hpp"

#include <string>

namespace orch::server {

/// A stream that can write its own keep-alive on the I/O thread. Without it, a keep-alive is a
/// trip to the worker pool like any Next: with a thousand idle streams, one such trip (two thread
/// wake-ups) per stream per heartbeat, all due at the same ticks. The server asks it when Idle()
/// said no, before sending the stream to Next.
class KeepAliveStream : public ResponseStream {
   public:
    /// When a keep-alive is all Next would send now: appends it to `out` and returns true (Next is
    /// skipped this time). Otherwise false, and Next is called as usual. On the I/O thread: must
    /// not block.
    virtual bool KeepAlive(std::string& out) = 0;
};

}  // namespace orch::server
