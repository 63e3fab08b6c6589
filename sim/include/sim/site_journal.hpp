#pragma once

#include "common/result.hpp"
#include "sim/sim_http.hpp"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace orch::sim {

/// One accepted write to a site's API, as the journal keeps it.
struct JournalEntry {
    std::string api;  ///< SimApiName: "marathon", "chronos", "kubernetes"
    SimRequest request;
};

/// What a site was asked to change, one JSON line per accepted write (site-sim --state-file), so
/// a site-sim killed and started again on the same file comes back with its workload, as a real
/// Marathon keeps its apps in ZooKeeper across a restart: the self-healing e2e test needs a site
/// that returns holding what it held. Only the method, path, query, body and Content-Type are
/// kept (never the Authorization header: no credentials on disk).
class SiteJournal {
   public:
    /// Reads what `path` holds (a missing file is an empty journal; a torn last line, from a
    /// kill during its write, is skipped) and opens it for appending.
    static Result<std::unique_ptr<SiteJournal>> Open(const std::string& path);

    /// The writes the file held when it was opened, oldest first: replayed at start.
    const std::vector<JournalEntry>& loaded() const { return loaded_; }

    /// Appends one write and flushes it to the kernel, so a kill -9 right after the answer
    /// does not lose it (the page cache outlives the process).
    void Append(const std::string& api, const SimRequest& request);

   private:
    std::vector<JournalEntry> loaded_;
    std::ofstream out_;
};

}  // namespace orch::sim
