#include "sim/site_journal.hpp"

#include "common/log.hpp"

#include <sstream>

namespace orch::sim {
namespace {

Json ToLine(const std::string& api, const SimRequest& request) {
    Json query = Json::array();
    for (const auto& [name, value] : request.query) {
        query.push_back(Json::array({name, value}));
    }
    return {
        {"api", api},
        {"method", request.method},
        {"path", request.path},
        {"query", std::move(query)},
        {"content_type", request.Header("Content-Type")},
        {"body", request.body}};
}

// nullopt for a line that is not a whole entry (the torn end of a killed write).
std::optional<JournalEntry> FromLine(const std::string& line) {
    auto parsed = ParseJson(line);
    if (!parsed || !parsed->is_object()) {
        return std::nullopt;
    }
    const Json& j = *parsed;
    if (!j["api"].is_string() || !j["method"].is_string() || !j["path"].is_string() || !j["body"].is_string() ||
        !j["query"].is_array()) {
        return std::nullopt;
    }
    JournalEntry entry;
    entry.api = j["api"].get<std::string>();
    entry.request.method = j["method"].get<std::string>();
    entry.request.path = j["path"].get<std::string>();
    entry.request.body = j["body"].get<std::string>();
    for (const auto& pair : j["query"]) {
        if (pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_string()) {
            entry.request.query.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
        }
    }
    if (const auto type = j.value("content_type", std::string()); !type.empty()) {
        entry.request.headers.emplace_back("Content-Type", type);
    }
    return entry;
}

}  // namespace

Result<std::unique_ptr<SiteJournal>> SiteJournal::Open(const std::string& path) {
    auto journal = std::make_unique<SiteJournal>();
    bool torn = false;
    if (std::ifstream in(path); in) {
        std::string line;
        while (std::getline(in, line)) {
            torn = in.eof() && !line.empty();  // the last line has no newline: its write was cut
            if (auto entry = FromLine(line)) {
                journal->loaded_.push_back(std::move(*entry));
            } else if (!line.empty()) {
                ORCH_LOG_WARN("site-sim: journal line skipped (not a whole entry)", {{"path", path}});
            }
        }
    }
    journal->out_.open(path, std::ios::app);
    if (!journal->out_) {
        return Error::InvalidArgument("cannot write the state file " + path);
    }
    if (torn) {
        journal->out_ << '\n' << std::flush;  // the next entry starts on a line of its own
    }
    return journal;
}

void SiteJournal::Append(const std::string& api, const SimRequest& request) {
    out_ << ToLine(api, request).dump() << '\n' << std::flush;
}

}  // namespace orch::sim
