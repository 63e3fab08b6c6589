#include "imports/import_resolver.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kFailureTtl{30};

const Clock& DefaultClock() {
    static const SystemClock kSystemClock;
    return kSystemClock;
}
constexpr std::size_t kMaxFetchedEntries = 256;

std::string Lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return text;
}

/// Removes "." and ".." segments ("a/./b/../c" → "a/c"); ".." never climbs above the root.
std::string RemoveDotSegments(std::string_view path) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    const bool absolute = !path.empty() && path.front() == '/';
    bool trailing = false;
    while (start <= path.size()) {
        const std::size_t slash = path.find('/', start);
        const std::string_view seg =
            path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        trailing = false;
        if (seg == "..") {
            if (!out.empty()) {
                out.pop_back();
            }
            trailing = true;
        } else if (seg == ".") {
            trailing = true;
        } else if (!seg.empty()) {
            out.push_back(seg);
        }
        if (slash == std::string_view::npos) {
            trailing = trailing || (!path.empty() && path.back() == '/');
            break;
        }
        start = slash + 1;
    }
    std::string result = absolute ? "/" : "";
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (i > 0) {
            result += '/';
        }
        result += out[i];
    }
    if (trailing && !out.empty()) {
        result += '/';
    }
    return result;
}

std::size_t AuthorityEnd(std::string_view url) {
    const std::size_t scheme = url.find("://");
    const std::size_t end = url.find_first_of("/?#", scheme + 3);
    return end == std::string_view::npos ? url.size() : end;
}

std::string HostOf(std::string_view url) {
    auto parsed = http::ParseUrl(std::string(url));
    return parsed ? Lower(parsed->host) : std::string();
}

std::int64_t MtimeNs(const fs::path& path, std::error_code& ec) {
    const auto time = fs::last_write_time(path, ec);
    return ec ? 0
              : static_cast<std::int64_t>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count()
                );
}

}  // namespace

DiagnosticCode ImportDiagnosticCode(const Error& error) {
    switch (error.code) {
        case ErrorCode::kPermissionDenied:
            return DiagnosticCode::kImportRefused;
        case ErrorCode::kNotFound:
        case ErrorCode::kUnavailable:
        case ErrorCode::kDeadlineExceeded:
            return DiagnosticCode::kImportUnreachable;
        default:
            return DiagnosticCode::kImport;
    }
}

bool IsAbsoluteUrl(std::string_view text) {
    const std::size_t scheme = text.find("://");
    if (scheme == std::string_view::npos || scheme == 0) {
        return false;
    }
    return std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(scheme), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    });
}

std::string JoinUrl(std::string_view base, std::string_view reference) {
    std::string joined;
    if (IsAbsoluteUrl(reference)) {
        joined = std::string(reference);
    } else {
        const std::size_t authority_end = AuthorityEnd(base);
        const std::string origin(base.substr(0, authority_end));
        if (!reference.empty() && reference.front() == '/') {
            joined = origin + std::string(reference);
        } else {
            std::string_view path = base.substr(authority_end);
            path = path.substr(0, path.find_first_of("?#"));
            const std::size_t last = path.rfind('/');
            const std::string dir = last == std::string_view::npos ? "/" : std::string(path.substr(0, last + 1));
            joined = origin + dir + std::string(reference);
        }
    }
    const std::size_t authority_end = AuthorityEnd(joined);
    const std::size_t query = joined.find_first_of("?#", authority_end);
    const std::string path =
        joined.substr(authority_end, query == std::string::npos ? std::string::npos : query - authority_end);
    std::string normalised = RemoveDotSegments(path);
    if (normalised.empty() || normalised.front() != '/') {
        normalised.insert(normalised.begin(), '/');
    }
    return joined.substr(0, authority_end) + normalised + (query == std::string::npos ? "" : joined.substr(query));
}

ImportResolver::ImportResolver(const EngineOptions& options)
    : options_(options), clock_(options.clock != nullptr ? *options.clock : DefaultClock()) {}

Result<ImportLocation> ImportResolver::Locate(
    std::string_view reference, const ImportLocation* importer, const std::string& base_directory
) const {
    if (reference.empty()) {
        return Error::InvalidArgument("the import names no file or URL");
    }
    if (IsAbsoluteUrl(reference)) {
        const std::string scheme = Lower(std::string(reference.substr(0, reference.find("://"))));
        if (scheme != "http" && scheme != "https") {
            return Error::InvalidArgument(
                "Invalid import url for remote TOSCA dependency " + std::string(reference) +
                ": only http and https URLs can be imported"
            );
        }
        return LocateUrl(JoinUrl({}, reference));
    }
    if (importer != nullptr && importer->is_url) {
        return LocateUrl(JoinUrl(importer->logical, reference));
    }
    if (!options_.allow_file_imports) {
        return Error::PermissionDenied(
            "import \"" + std::string(reference) +
            "\" is a local file name; templates submitted to the server can only import URLs"
        );
    }
    fs::path path(reference);
    if (path.is_relative()) {
        // Relative to the importing file at every level; a file named without a directory
        // ("b.yaml", as given on a command line) lives in the current directory.
        fs::path base = fs::path(base_directory);
        if (importer != nullptr) {
            base = fs::path(importer->logical).parent_path();
            if (base.empty()) {
                base = ".";
            }
        }
        if (base.empty()) {
            return Error::InvalidArgument(
                "import \"" + std::string(reference) +
                "\" is relative but the template has no directory to resolve it against"
            );
        }
        path = base / path;
    }
    const std::string normal = path.lexically_normal().string();
    return ImportLocation{false, normal, normal};
}

Result<ImportLocation> ImportResolver::LocateUrl(const std::string& url) const {
    const MirrorMapping* best = nullptr;
    for (const auto& mirror : options_.mirrors) {
        if (!mirror.url_prefix.empty() && url.rfind(mirror.url_prefix, 0) == 0 &&
            (best == nullptr || mirror.url_prefix.size() > best->url_prefix.size())) {
            best = &mirror;
        }
    }
    if (best != nullptr) {
        std::string rest = url.substr(best->url_prefix.size());
        rest = rest.substr(0, rest.find_first_of("?#"));
        const bool safe = !rest.empty() && rest.front() != '/' && rest.find("..") == std::string::npos &&
                          rest.find('\\') == std::string::npos && rest.find('%') == std::string::npos;
        if (!safe) {
            return Error::PermissionDenied(
                "Invalid import url for remote TOSCA dependency " + url +
                ": it cannot be mapped into the mirror directory"
            );
        }
        return ImportLocation{true, url, (fs::path(best->directory) / rest).lexically_normal().string()};
    }
    const std::string host = HostOf(url);
    const bool allowed =
        std::any_of(options_.allowed_hosts.begin(), options_.allowed_hosts.end(), [&](const std::string& h) {
            return Lower(h) == host;
        });
    if (!allowed) {
        return Error::PermissionDenied(
            "import " + url + " is refused: no mirror maps it and host '" + host +
            "' is not on the allow-list (configure tosca.mirrors or tosca.allowed_hosts)"
        );
    }
    if (Lower(url.substr(0, 8)) != "https://") {
        return Error::PermissionDenied("import " + url + " is refused: remote imports are fetched over https only");
    }
    if (options_.http_client == nullptr) {
        return Error::PermissionDenied(
            "import " + url + " cannot be fetched: no HTTP client is configured and no mirror maps it"
        );
    }
    return ImportLocation{true, url, ""};
}

Result<ImportText> ImportResolver::Read(const ImportLocation& location) const {
    if (!location.local_path.empty()) {
        return ReadFile(location.local_path, location.logical);
    }
    return Fetch(location.logical);
}

Result<ImportText> ImportResolver::ReadFile(const std::string& path, const std::string& logical) const {
    // Only the import as the template names it: a mirror's file path is the server's business.
    const std::string& shown = logical;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) {
        return Error::NotFound("Failed to fetch remote TOSCA dependency " + shown + ": " + ec.message());
    }
    if (size > options_.limits.max_document_bytes) {
        return Error::InvalidArgument(
            "import " + shown + " is " + std::to_string(size) + " bytes, more than the limit of " +
            std::to_string(options_.limits.max_document_bytes)
        );
    }
    ImportText out;
    out.stamp.local_path = path;
    out.stamp.size = size;
    out.stamp.mtime_ns = MtimeNs(path, ec);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error::NotFound("Failed to fetch remote TOSCA dependency " + shown + ": cannot open the file");
    }
    out.text.resize(static_cast<std::size_t>(size));
    in.read(out.text.data(), static_cast<std::streamsize>(size));
    out.text.resize(static_cast<std::size_t>(in.gcount()));
    return out;
}

Result<ImportText> ImportResolver::Fetch(const std::string& url) const {
    const auto now = clock_.steady_now();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (const auto it = fetched_.find(url); it != fetched_.end() && it->second.expires > now) {
            if (!it->second.ok) {
                return Error::Unavailable(it->second.error);
            }
            ImportText out{it->second.text, {}};
            out.stamp.fetched = true;
            out.stamp.expires = it->second.expires;
            return out;
        }
    }
    // The fetch happens outside the lock: a slow host must not stall other checks.
    http::ClientRequest request;
    request.url = url;
    request.headers = {{"Accept", "text/plain, application/x-yaml, */*"}};
    request.timeout = options_.fetch_timeout;
    request.max_response_bytes = options_.limits.max_document_bytes;
    Fetched entry;
    auto response = options_.http_client->Send(request);
    if (!response) {
        entry.error = "Failed to fetch remote TOSCA dependency " + url + ": " + response.error().message;
        entry.expires = now + kFailureTtl;
    } else if (response->status != 200) {
        entry.error =
            "Failed to fetch remote TOSCA dependency " + url + ": HTTP status " + std::to_string(response->status);
        entry.expires = now + kFailureTtl;
    } else {
        entry.ok = true;
        entry.text = std::move(response->body);
        entry.expires = now + options_.fetched_ttl;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = fetched_.find(url); it != fetched_.end()) {
        fetched_bytes_ -= it->second.text.size();
        fetched_.erase(it);
    }
    if (fetched_.size() >= kMaxFetchedEntries ||
        fetched_bytes_ + entry.text.size() > options_.max_cached_import_bytes) {
        fetched_.clear();  // bounded in entries and bytes; refilled on demand
        fetched_bytes_ = 0;
    }
    fetched_bytes_ += entry.text.size();
    Fetched& stored = fetched_[url] = std::move(entry);
    if (!stored.ok) {
        return Error::Unavailable(stored.error);
    }
    ImportText out{stored.text, {}};
    out.stamp.fetched = true;
    out.stamp.expires = stored.expires;
    return out;
}

bool ImportResolver::StillValid(const ImportStamp& stamp) const {
    if (stamp.fetched) {
        return clock_.steady_now() < stamp.expires;
    }
    std::error_code ec;
    const auto size = fs::file_size(stamp.local_path, ec);
    if (ec || size != stamp.size) {
        return false;
    }
    const std::int64_t mtime = MtimeNs(stamp.local_path, ec);
    return !ec && mtime == stamp.mtime_ns;
}

void ImportResolver::ClearFetched() const {
    std::lock_guard<std::mutex> lock(mutex_);
    fetched_.clear();
    fetched_bytes_ = 0;
}

}  // namespace orch::tosca
