#include "cmdb/file_sla_source.hpp"

#include "yaml_json.hpp"

namespace orch::cmdb {

Result<std::unique_ptr<FileSlaSource>> FileSlaSource::Open(const std::string& path) {
    auto text = ReadTextFile(path, 64u << 20);
    if (!text) {
        return Error::InvalidArgument("SLA file: " + text.error().message);
    }
    auto root = YamlToJson(*text, path);
    if (!root) {
        return std::move(root).error();
    }
    return FromJson(*root, path);
}

Result<std::unique_ptr<FileSlaSource>> FileSlaSource::FromJson(const Json& root, const std::string& origin) {
    if (!root.is_object()) {
        return Error::InvalidArgument(origin + ": expected a mapping of group name to SLAM preferences");
    }
    std::map<std::string, std::shared_ptr<const SlaSet>> by_group;
    for (const auto& [group, body] : root.items()) {
        auto slas = ParseSlamPreferences(body, group);
        if (!slas) {
            return Error::InvalidArgument(origin + ": group '" + group + "': " + slas.error().message);
        }
        by_group.emplace(group, std::make_shared<const SlaSet>(std::move(slas).value()));
    }
    return std::unique_ptr<FileSlaSource>(new FileSlaSource(std::move(by_group)));
}

Result<SlaView> FileSlaSource::ForGroup(const std::string& group, const std::string&) {
    const auto it = by_group_.find(group);
    if (it == by_group_.end()) {
        return Error::NotFound("Error fetching SLA for customer " + group + " from SLAM.");
    }
    return SlaView{it->second, {}};
}

}  // namespace orch::cmdb
