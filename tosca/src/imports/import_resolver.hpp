#pragma once

#include "common/clock.hpp"
#include "common/result.hpp"
#include "tosca/diagnostic.hpp"
#include "tosca/engine.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace orch::tosca {

/// Where an import lives: its logical name (the URL, even when a mirror serves it, or the
/// absolute file path), and where its text is read from.
struct ImportLocation {
    bool is_url = false;
    std::string logical;     ///< normalised URL or absolute path; relative imports resolve against it
    std::string local_path;  ///< file to read (a mirror hit or a file import); empty = fetch `logical`
};

/// Identifies the exact content read, so cached results can be revalidated.
struct ImportStamp {
    std::string local_path;  ///< file: path, size and modification time
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    Clock::SteadyTime expires{};  ///< fetched: reuse until then
    bool fetched = false;
};

/// The text of an import and its stamp.
struct ImportText {
    std::string text;
    ImportStamp stamp;
};

/// Resolves import references and reads them, enforcing the mirror map and the host allow-list:
/// a URL is read from a mirror directory when a prefix maps it, otherwise fetched over HTTPS only
/// for allow-listed hosts (cached for fetched_ttl; failures for 30 s), and refused otherwise.
/// Error kinds are part of the contract (ImportDiagnosticCode reads them): kPermissionDenied = the
/// policy refuses the import; kNotFound / kUnavailable / kDeadlineExceeded = it could not be read
/// or fetched; anything else (kInvalidArgument) = the reference or the document is wrong.
/// Thread-safe.
class ImportResolver {
   public:
    explicit ImportResolver(const EngineOptions& options);

    /// Resolves `reference` relative to the importing document (`importer`, empty for a template
    /// read from text, which then uses `base_directory` for relative file imports).
    Result<ImportLocation> Locate(
        std::string_view reference, const ImportLocation* importer, const std::string& base_directory
    ) const;

    Result<ImportText> Read(const ImportLocation& location) const;

    /// Whether content read earlier is still what Read() would return.
    bool StillValid(const ImportStamp& stamp) const;

    void ClearFetched() const;

   private:
    Result<ImportText> ReadFile(const std::string& path, const std::string& logical) const;
    Result<ImportText> Fetch(const std::string& url) const;
    Result<ImportLocation> LocateUrl(const std::string& url) const;

    const EngineOptions& options_;
    const Clock& clock_;

    struct Fetched {
        bool ok = false;
        std::string text;
        std::string error;
        Clock::SteadyTime expires;
    };
    mutable std::mutex mutex_;
    mutable std::map<std::string, Fetched> fetched_;
    mutable std::uint64_t fetched_bytes_ = 0;  ///< texts held, at most options_.max_cached_import_bytes
};

/// The diagnostic code for an import that failed with `error` (see ImportResolver's error kinds).
DiagnosticCode ImportDiagnosticCode(const Error& error);

/// RFC 3986 reference resolution for http(s) URLs, with dot segments removed.
std::string JoinUrl(std::string_view base, std::string_view reference);
bool IsAbsoluteUrl(std::string_view text);

}  // namespace orch::tosca
