#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/json.hpp"
#include "orchestrator/server/request.hpp"

namespace orch::api {

/// The absolute base URL clients must see in links[].href: the configured external URL, else
/// built from X-Forwarded-Proto/Host/Port/Prefix and Host, as the original did behind proxies.
std::string BaseUrl(const server::Request& request, const std::string& external_base_url);

/// A query parameter kept verbatim (not percent-encoded when it only holds URL-safe
/// characters plus '@', ':' and '/', as the original rendered createdBy=sub@https://iam/).
std::string QueryValue(const std::string& value);

/// The paged response's links: first/prev/self/next/last (first and last only with more than
/// one page; prev/next when they exist). `self_href` is used as is; the navigation links are
/// `nav_base` (no query, or with one) plus page/size/sort.
Json PageLinks(const std::string& self_href, const std::string& nav_base, int page, int size, std::int64_t total,
               const std::string& sort);

/// The paged response envelope {links, content, page}.
Json PageBody(Json links, Json content, int page, int size, std::int64_t total);

}  // namespace orch::api
