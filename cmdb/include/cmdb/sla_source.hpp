#pragma once

#include "cmdb/sla.hpp"
#include "common/result.hpp"

#include <memory>
#include <string>
#include <vector>

namespace orch::cmdb {

struct SlaView {
    std::shared_ptr<const SlaSet> slas;
    std::vector<std::string> notes;  ///< e.g. "SLAM unreachable (...); using the SLAs read 3 min ago"
};

/// Where SLAs come from. ForGroup answers kNotFound when the group has no SLA at all (SLAM's
/// 404), kUnavailable when SLAM cannot be reached and nothing is cached. Thread-safe; blocks.
class SlaSource {
   public:
    virtual ~SlaSource() = default;
    /// `access_token` is the user's token, forwarded to SLAM as a bearer token and never logged.
    virtual Result<SlaView> ForGroup(const std::string& group, const std::string& access_token) = 0;
    /// ForGroup for a caller of `issuer`: sources whose groups are scoped per identity provider
    /// (the Federation Registry) read it; the others ignore it.
    virtual Result<SlaView> ForCaller(
        const std::string& group, const std::string& issuer, const std::string& access_token
    ) {
        (void)issuer;
        return ForGroup(group, access_token);
    }
    /// The URL shown as `slam_url` by GET /configuration; empty for local files.
    virtual std::string Url() const = 0;
};

}  // namespace orch::cmdb
