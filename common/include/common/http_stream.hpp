#pragma once

#include "common/http_client.hpp"
#include "common/result.hpp"

#include <functional>
#include <string_view>

namespace orch::http {

/// Where a streamed response goes: the status once, then the body piece by piece as it arrives.
/// Either callback answers false to stop reading; `cancelled` is asked a few times a second while
/// nothing arrives, so a stopping caller is not held by a quiet stream.
struct StreamSink {
    std::function<bool(int status, const Headers& headers)> on_status;
    std::function<bool(std::string_view bytes)> on_bytes;
    std::function<bool()> cancelled;
};

/// Responses that never end (Server-Sent Events, Kubernetes watches). The client MakeClient
/// builds is one; a Client that is not (test fakes, decorators) cannot stream.
class StreamingClient {
   public:
    virtual ~StreamingClient() = default;
    /// Sends `request` on a connection of its own and hands the response to `sink` as it comes,
    /// until the body ends, the sink stops or is cancelled (Ok), or `request.timeout` (the
    /// stream's whole life: Ok, the caller reconnects) passes. More than
    /// `request.max_response_bytes` of body ends it with kResourceExhausted. Transport failures
    /// as for Client::Send. Redirects are not followed.
    virtual Status StreamBody(const ClientRequest& request, const StreamSink& sink) = 0;
};

/// `client` as a StreamingClient, or null when it cannot stream.
inline StreamingClient* AsStreaming(Client& client) {
    return dynamic_cast<StreamingClient*>(&client);
}

}  // namespace orch::http
