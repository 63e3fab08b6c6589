#pragma once

#include <chrono>
#include <string>

namespace orch::server {

/// A response body produced over time (Server-Sent Events). The server writes the headers, then
/// calls Next on the worker pool (never on an I/O thread: it may read the database), sends what
/// it appended as one chunk, waits about interval() (one timer per I/O thread for all its streams)
/// and calls again, until Next returns false, the client goes away, a write exceeds the write
/// timeout or the server stops. Memory per stream is what one Next produces: the source bounds it.
class ResponseStream {
   public:
    virtual ~ResponseStream() = default;
    /// Appends what to send now to `out` (possibly nothing); false ends the stream after `out`.
    virtual bool Next(std::string& out) = 0;
    /// Whether Next would surely append nothing now, so the server may skip its trip to the
    /// worker pool this time. Called on the I/O thread: it must not block (no database, no lock
    /// held for long). Idle streams answering true cost this call (one walk a tick), not a worker.
    virtual bool Idle() const { return false; }
    /// The pause between two calls of Next.
    virtual std::chrono::milliseconds interval() const = 0;
    /// The last words for a consumer dropped because it does not read: more than the server's
    /// stream_buffer_limit bytes were waiting unsent in its socket.
    virtual std::string Dropped() const = 0;
};

}  // namespace orch::server
