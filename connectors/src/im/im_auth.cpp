#include "connectors/im_auth.hpp"

#include <utility>
#include <vector>

namespace orch::connectors {
namespace {

using Record = std::vector<std::pair<std::string, std::string>>;

std::string Option(const SiteTarget& target, const char* key) {
    const auto it = target.options.find(key);
    return it != target.options.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A value carrying ';' or the record separator would let a catalogue entry or a token add
// entries or whole records (another cloud, another IM user) to the header.
bool Forges(const std::string& value) {
    return value.find(';') != std::string::npos || value.find("\\n") != std::string::npos ||
           value.find_first_of("\r\n") != std::string::npos;
}

ConnectorResult<std::string> Render(const std::vector<Record>& records) {
    std::string out;
    for (const auto& record : records) {
        if (!out.empty()) {
            out += "\\n";
        }
        bool first = true;
        for (const auto& [key, value] : record) {
            if (value.empty()) {
                continue;
            }
            if (Forges(value)) {
                return Failure{
                    FailureKind::kTryAnotherSite,
                    "the IM authorization entry '" + key + "' holds a character IM reads as a separator"};
            }
            out += (first ? "" : "; ") + key + " = " + value;
            first = false;
        }
    }
    return out;
}

std::string RecordId(const SiteTarget& target) {
    std::string id;
    for (const char c : target.service_id.empty() ? target.site_id : target.service_id) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                          c == '_' || c == '.';
        id += keep ? c : '_';
    }
    return id.empty() ? "site" : id;
}

Record OpenStackRecord(const SiteTarget& target) {
    const Credentials& c = target.credentials;
    Record r{{"id", RecordId(target)}, {"type", "OpenStack"}, {"host", target.endpoint}};
    if (!c.application_credential_id.empty()) {
        r.insert(
            r.end(),
            {{"username", c.application_credential_id},
             {"password", c.application_credential_secret},
             {"auth_version", "3.x_appcred"}}
        );
    } else if (!c.username.empty()) {
        const bool v2 = target.endpoint.find("/v2") != std::string::npos;
        r.insert(
            r.end(),
            {{"username", c.username},
             {"password", c.password},
             {"tenant", target.project},
             {"auth_version", v2 ? "2.0_password" : "3.x_password"}}
        );
    } else {
        std::string protocol = Option(target, "protocol");
        r.insert(
            r.end(),
            {{"username", Option(target, "identity_provider")},
             {"tenant", protocol.empty() ? "oidc" : protocol},
             {"password", c.bearer_token},
             {"auth_version", "3.x_oidc_access_token"}}
        );
    }
    const std::string project_id = Option(target, "project_id");
    r.emplace_back("domain", target.project.empty() ? project_id : target.project);
    r.emplace_back("service_region", target.region);
    r.emplace_back("microversion", Option(target, "microversion"));
    return r;
}

Record CloudRecord(const SiteTarget& target) {
    const Credentials& c = target.credentials;
    const std::string type = ImCloudType(target);
    if (type == "OpenNebula") {
        Record r{{"id", RecordId(target)}, {"type", type}, {"host", target.endpoint}};
        if (!c.username.empty()) {
            r.insert(r.end(), {{"username", c.username}, {"password", c.password}});
        } else {
            r.emplace_back("token", c.bearer_token);
        }
        return r;
    }
    if (type == "EC2") {
        return {{"id", RecordId(target)}, {"type", type}, {"username", c.username}, {"password", c.password}};
    }
    if (type == "EGI") {
        // EGI FedCloud sites are named by their GOCDB name; the VO is the project.
        std::string host = Option(target, "sitename");
        return {
            {"id", RecordId(target)},
            {"type", type},
            {"host", host.empty() ? target.site_id : host},
            {"vo", target.project},
            {"token", c.bearer_token}};
    }
    return OpenStackRecord(target);
}

}  // namespace

std::string ImCloudType(const SiteTarget& target) {
    const std::string type = Option(target, "im_cloud_type");
    for (const char* known : {"OpenNebula", "EC2", "EGI"}) {
        if (type == known) {
            return type;
        }
    }
    return "OpenStack";
}

ConnectorResult<std::string> ImAuthorization(
    const SiteTarget& target, const std::string& im_username, const std::string& im_password
) {
    Record im{{"type", "InfrastructureManager"}};
    if (!target.credentials.bearer_token.empty()) {
        im.emplace_back("token", target.credentials.bearer_token);
    } else if (!im_username.empty()) {
        im.insert(im.end(), {{"username", im_username}, {"password", im_password}});
    } else {
        return Failure{
            FailureKind::kTryAnotherSite,
            "IM needs the user's token or a configured IM user (im.username), and has neither for this site"};
    }
    return Render({im, CloudRecord(target)});
}

}  // namespace orch::connectors
