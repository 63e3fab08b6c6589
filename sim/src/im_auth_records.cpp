#include "sim/im_sim.hpp"

#include <algorithm>
#include <set>

namespace orch::sim {
namespace {

std::string Trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

std::string Get(const ImAuthRecord& record, const std::string& key) {
    const auto it = record.find(key);
    return it == record.end() ? std::string() : it->second;
}

std::string CheckOpenStack(const ImAuthRecord& r) {
    static const std::set<std::string> kVersions = {
        "2.0_password", "3.x_password", "3.x_oidc_access_token", "3.x_appcred"};
    const std::string version = Get(r, "auth_version");
    if (Get(r, "host").empty()) {
        return "OpenStack record without host";
    }
    if (!kVersions.contains(version)) {
        return "OpenStack record with unknown auth_version '" + version + "'";
    }
    if (Get(r, "username").empty() || Get(r, "password").empty()) {
        return "OpenStack record without username/password";
    }
    if ((version == "3.x_oidc_access_token" || version.ends_with("_password")) && Get(r, "tenant").empty()) {
        return "OpenStack record without tenant";
    }
    return {};
}

std::string CheckCloud(const ImAuthRecord& r) {
    const std::string type = Get(r, "type");
    if (Get(r, "id").empty()) {
        return type + " record without id";
    }
    if (type == "OpenStack") {
        return CheckOpenStack(r);
    }
    if (type == "OpenNebula") {
        const bool has = !Get(r, "token").empty() || (!Get(r, "username").empty() && !Get(r, "password").empty());
        return Get(r, "host").empty() || !has ? "OpenNebula record needs host and token or username/password" : "";
    }
    if (type == "EC2") {
        return Get(r, "username").empty() || Get(r, "password").empty() ? "EC2 record needs username and password" : "";
    }
    if (type == "EGI") {
        return Get(r, "host").empty() || Get(r, "vo").empty() || Get(r, "token").empty()
                   ? "EGI record needs host, vo and token"
                   : "";
    }
    return "unknown cloud type '" + type + "'";
}

}  // namespace

std::variant<std::vector<ImAuthRecord>, std::string> ParseImAuthorization(const std::string& header) {
    std::vector<ImAuthRecord> records;
    std::size_t start = 0;
    while (start <= header.size()) {
        const std::size_t end = std::min(header.find("\\n", start), header.size());
        const std::string line = header.substr(start, end - start);
        start = end + 2;
        if (Trim(line).empty()) {
            continue;
        }
        ImAuthRecord record;
        std::size_t from = 0;
        while (from <= line.size()) {
            const std::size_t semi = std::min(line.find(';', from), line.size());
            const std::string entry = line.substr(from, semi - from);
            from = semi + 1;
            if (Trim(entry).empty()) {
                continue;
            }
            const auto eq = entry.find('=');
            if (eq == std::string::npos) {
                return "auth entry without '=': '" + Trim(entry).substr(0, 40) + "'";
            }
            const std::string key = Trim(entry.substr(0, eq));
            if (!record.emplace(key, Trim(entry.substr(eq + 1))).second) {
                return "auth entry '" + key + "' given twice in one record";
            }
        }
        records.push_back(std::move(record));
        if (records.size() > 32) {
            return "too many auth records";
        }
    }
    return records;
}

std::string CheckImAuthorization(const std::vector<ImAuthRecord>& records, const std::vector<std::string>& tokens) {
    int im_records = 0;
    int clouds = 0;
    for (const auto& r : records) {
        const std::string type = Get(r, "type");
        if (type.empty()) {
            return "auth record without type";
        }
        if (type == "InfrastructureManager") {
            ++im_records;
            const std::string token = Get(r, "token");
            if (token.empty() && (Get(r, "username").empty() || Get(r, "password").empty())) {
                return "InfrastructureManager record needs a token or username and password";
            }
            if (!token.empty() && !tokens.empty() && std::find(tokens.begin(), tokens.end(), token) == tokens.end()) {
                return "Invalid InfrastructureManager credentials: the token is not valid";
            }
            continue;
        }
        ++clouds;
        if (std::string problem = CheckCloud(r); !problem.empty()) {
            return problem;
        }
    }
    if (im_records != 1) {
        return "exactly one InfrastructureManager record is needed";
    }
    return clouds == 0 ? "no cloud record: IM has nowhere to deploy" : "";
}

}  // namespace orch::sim
