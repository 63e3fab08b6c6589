#pragma once

#include "cmdb/sla_source.hpp"
#include "common/json.hpp"

#include <map>
#include <memory>
#include <string>

namespace orch::cmdb {

/// SLAs from a local file: a mapping customer (group) → the SLAM `/preferences` body, in YAML or
/// JSON (the original's local SLAM format). Read once at creation; a broken file fails startup.
class FileSlaSource : public SlaSource {
   public:
    static Result<std::unique_ptr<FileSlaSource>> Open(const std::string& path);
    /// From an already parsed document (tests, benchmarks).
    static Result<std::unique_ptr<FileSlaSource>> FromJson(const Json& root, const std::string& origin);

    Result<SlaView> ForGroup(const std::string& group, const std::string& access_token) override;
    std::string Url() const override { return {}; }

   private:
    explicit FileSlaSource(std::map<std::string, std::shared_ptr<const SlaSet>> by_group)
        : by_group_(std::move(by_group)) {}
    std::map<std::string, std::shared_ptr<const SlaSet>> by_group_;
};

}  // namespace orch::cmdb
