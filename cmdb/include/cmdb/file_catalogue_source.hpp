#pragma once

#include "cmdb/catalogue_source.hpp"
#include "common/clock.hpp"
#include "common/json.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace orch::cmdb {

/// Reads the local catalogue format: the original's local CMDB file (`providers` with a map of
/// services, `tenants` by id with their `tenant`, `images` and `flavors`), in YAML or JSON.
/// Services may also be written as a list of objects with an `id`. Every entry uses the CMDB
/// field names (docs/placement.md). An endpoint still holding a `${PLACEHOLDER}` is an error.
Result<Catalogue> ParseLocalCatalogue(const Json& root, const std::string& origin);
Result<Catalogue> ParseLocalCatalogueText(const std::string& text, const std::string& origin);

/// A catalogue file, read at creation (a broken file fails startup) and re-read when it changes
/// (checked at most once per `recheck`). A broken edit keeps the last good copy, with a note.
class FileCatalogueSource : public CatalogueSource {
   public:
    /// `clock` (when to look at the file again) must outlive the source.
    static Result<std::unique_ptr<FileCatalogueSource>> Open(
        const std::string& path, const Clock& clock, std::chrono::milliseconds recheck = std::chrono::seconds(10)
    );

    Result<CatalogueView> Load(const std::vector<std::string>& provider_ids) override;
    std::string Url() const override { return {}; }
    const std::string& path() const { return path_; }

   private:
    FileCatalogueSource(std::string path, std::chrono::milliseconds recheck, const Clock& clock);
    Status Reload();

    std::string path_;
    std::chrono::milliseconds recheck_;
    const Clock& clock_;
    std::mutex mutex_;
    std::shared_ptr<const Catalogue> current_;
    std::filesystem::file_time_type loaded_mtime_{};
    std::chrono::system_clock::time_point checked_at_{};
    std::string last_error_;
};

/// A fixed catalogue held in memory (tests, benchmarks, embedded defaults).
class StaticCatalogueSource : public CatalogueSource {
   public:
    explicit StaticCatalogueSource(std::shared_ptr<const Catalogue> catalogue) : catalogue_(std::move(catalogue)) {}
    Result<CatalogueView> Load(const std::vector<std::string>&) override { return CatalogueView{catalogue_, {}}; }
    std::string Url() const override { return {}; }

   private:
    std::shared_ptr<const Catalogue> catalogue_;
};

}  // namespace orch::cmdb
