#pragma once

#include <common/http_client.hpp>
#include <connectors/connector.hpp>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace orch::test {

/// An http::Client answering from routes the test sets up, recording every request.
class FakeClient final : public http::Client {
   public:
    using Handler = std::function<Result<http::ClientResponse>(const http::ClientRequest&)>;

    /// Requests whose method matches and whose URL (after scheme and host) starts with
    /// `path_prefix` go to `handler`; later routes win over earlier ones.
    void Route(const std::string& method, const std::string& path_prefix, Handler handler);
    Result<http::ClientResponse> Send(const http::ClientRequest& request) override;

    std::vector<http::ClientRequest> Requests(const std::string& method, const std::string& path_prefix) const;
    std::vector<http::ClientRequest> requests;

   private:
    struct Entry {
        std::string method, prefix;
        Handler handler;
    };
    std::vector<Entry> routes_;
    mutable std::mutex mutex_;
};

http::ClientResponse JsonResponse(int status, const Json& body, http::Headers headers = {});

/// Keystone at http://keystone.test:5000/v3 issuing "token-<n>" (n counts issued tokens) that
/// expire at `expires_at`, with a catalog holding compute (RegionOne, public and internal),
/// image and network endpoints.
void AddKeystone(FakeClient& client, const std::string& expires_at = "2099-01-01T00:00:00.000000Z");

/// Path of a URL: "http://h:1/a/b?c" → "/a/b?c".
std::string PathOf(const std::string& url);

connectors::SiteTarget PasswordSite();

}  // namespace orch::test
