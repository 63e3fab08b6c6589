#pragma once

#include "common/result.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orch::http {
class EgressPolicy;
}

namespace orch::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

/// Case-insensitive header lookup; empty when absent.
std::string FindHeader(const Headers& headers, std::string_view name);

/// One outbound request. Every bound has a default; callers tighten them per target.
struct ClientRequest {
    std::string method = "GET";
    std::string url;  ///< http:// or https:// absolute URL
    Headers headers;
    std::string body;
    std::chrono::milliseconds timeout{10'000};  ///< whole exchange: resolve, connect, TLS, write, read
    std::size_t max_response_bytes = 8u << 20;  ///< larger bodies fail with kResourceExhausted
};

struct ClientResponse {
    int status = 0;
    Headers headers;
    std::string body;

    std::string Header(std::string_view name) const { return FindHeader(headers, name); }
};

/// Outbound HTTP. Transport failures (DNS, refused, TLS, timeout, oversize) are returned as errors:
/// kUnavailable (cannot reach), kDeadlineExceeded (timeout), kResourceExhausted (too large),
/// kInvalidArgument (bad URL). Any HTTP status is a successful exchange and comes back as a response.
/// Implementations are safe to call from several threads at once.
class Client {
   public:
    virtual ~Client() = default;
    virtual Result<ClientResponse> Send(const ClientRequest& request) = 0;
};

struct ClientOptions {
    std::string ca_file;           ///< extra trust anchors (PEM); the system store is always used
    std::string client_cert_file;  ///< PEM certificate chain presented to servers (Kubernetes)
    std::string client_key_file;   ///< its private key (PEM)
    bool verify_peer = true;       ///< certificate and host-name verification for https
    int max_redirects = 0;         ///< redirects are not followed unless asked for
    std::size_t max_idle_per_host = 4;
    std::chrono::seconds idle_timeout{30};
    std::string user_agent = "indigo-orchestrator";
    /// Set for a client making requests because a user asked (callbacks): every resolved address
    /// is checked and only allowed ones are connected to; redirects are never followed.
    std::shared_ptr<const EgressPolicy> egress;
};

/// The Beast/OpenSSL implementation; fails when the CA file cannot be loaded.
Result<std::unique_ptr<Client>> MakeClient(const ClientOptions& options);

/// Parsed absolute URL.
struct Url {
    std::string scheme;  ///< "http" or "https"
    std::string host;
    std::string port;    ///< always set ("80"/"443" by default)
    std::string target;  ///< path + query, at least "/"
};
Result<Url> ParseUrl(const std::string& url);

/// Percent-encodes a query or path component (RFC 3986 unreserved characters kept).
std::string UrlEncode(std::string_view text);
/// Decodes %XX and (when `plus_is_space`) '+'; malformed escapes are kept literally.
std::string UrlDecode(std::string_view text, bool plus_is_space);

}  // namespace orch::http
