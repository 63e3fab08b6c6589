#pragma once

#include "cmdb/site_model.hpp"
#include "common/result.hpp"

#include <memory>
#include <string>
#include <vector>

namespace orch::cmdb {

/// A catalogue as one placement sees it, plus what the user should know about its freshness.
struct CatalogueView {
    std::shared_ptr<const Catalogue> catalogue;
    std::vector<std::string> notes;  ///< e.g. "CMDB unreachable (...); using the copy of RECAS-BARI from 5 min ago"
};

/// Where sites come from. Implementations are safe to call from several threads at once and
/// bound every network call; Load blocks (call it from a worker, never from an I/O thread).
class CatalogueSource {
   public:
    virtual ~CatalogueSource() = default;
    /// The providers named (a source that holds everything may return more). A provider that
    /// cannot be loaded is left out with a note; an error means no catalogue could be produced.
    virtual Result<CatalogueView> Load(const std::vector<std::string>& provider_ids) = 0;
    /// The URL shown as `cmdb_url` by GET /configuration; empty for local files.
    virtual std::string Url() const = 0;
};

}  // namespace orch::cmdb
