#pragma once

#include "common/json_writer.hpp"
#include "orchestrator/server/request.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace orch::api {

/// The absolute base URL clients must see in links[].href: the configured external URL, else
/// built from RFC 7239 Forwarded (proto, host), X-Forwarded-Proto/Ssl/Host/Port/Prefix and Host,
/// as the original did behind proxies. The server drops forwarding headers from peers that are
/// not trusted proxies (server.trusted_proxies) before any handler runs.
std::string BaseUrl(const server::Request& request, const std::string& external_base_url);

/// A query parameter kept verbatim (not percent-encoded when it only holds URL-safe
/// characters plus '@', ':' and '/', as the original rendered createdBy=sub@https://iam/).
std::string QueryValue(const std::string& value);

/// Where a page sits and how its neighbours are reached (the links of every paged answer).
struct PageNav {
    std::string self_href;  ///< the self link, used as is
    std::string nav_base;   ///< the list URL (no query, or with one); page/size/sort are appended
    int page = 0;
    int size = 10;
    std::int64_t total = 0;
    std::string sort;  ///< the sort parameter's text, as given
};

/// The paged response body {content, links, page} as JSON text: `write_items` writes the
/// elements of the content array. Links are first/prev/self/next/last (first and last only with
/// more than one page; prev/next when they exist).
std::string PageBody(
    const PageNav& nav, const std::function<void(JsonWriter&)>& write_items, std::size_t expected_bytes = 4096
);

}  // namespace orch::api
