#pragma once

#include "common/result.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace orch {

/// A configuration tree: one YAML file plus `ORCHESTRATOR_*` environment overrides.
///
/// Keys are dotted paths ("server.listen"). Every getter validates and its error names the key
/// and the problem, so startup can fail with one clear line. Environment overrides:
/// `ORCHESTRATOR_SERVER__BODY_LIMIT=5MiB` sets `server.body_limit` (double underscore = one level),
/// and a module may declare short aliases (`ORCHESTRATOR_LISTEN` → `server.listen`).
class ConfigTree {
   public:
    ConfigTree();
    ~ConfigTree();
    ConfigTree(ConfigTree&&) noexcept;
    ConfigTree& operator=(ConfigTree&&) noexcept;
    ConfigTree(const ConfigTree&);
    ConfigTree& operator=(const ConfigTree&);

    /// Parses YAML text; `origin` names it in errors (a file path).
    static Result<ConfigTree> FromYaml(const std::string& text, const std::string& origin);
    static Result<ConfigTree> FromFile(const std::string& path);

    /// Applies `env` (name → value) onto the tree: generic `<prefix>A__B` names and the aliases
    /// (env name → dotted key). Returns the keys that were overridden.
    std::vector<std::string> ApplyEnvironment(
        const std::map<std::string, std::string>& env,
        const std::map<std::string, std::string>& aliases,
        const std::string& prefix = "ORCHESTRATOR_"
    );

    /// Sets a scalar (used by overrides and tests).
    void Set(const std::string& key, const std::string& value);

    bool Has(const std::string& key) const;

    Result<std::string> GetString(const std::string& key, const std::string& fallback) const;
    Result<std::int64_t> GetInt(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max)
        const;
    Result<bool> GetBool(const std::string& key, bool fallback) const;
    Result<double> GetDouble(const std::string& key, double fallback) const;
    /// Durations: "250ms", "10s", "5m", "2h", or a plain number of seconds.
    Result<std::chrono::milliseconds> GetDuration(const std::string& key, std::chrono::milliseconds fallback) const;
    /// Sizes: "512", "64KiB", "10MiB", "1GiB" (also KB/MB/GB as powers of 1000).
    Result<std::uint64_t> GetBytes(const std::string& key, std::uint64_t fallback) const;
    /// A YAML sequence of scalars, or a scalar with `separator`-separated items (env form).
    Result<std::vector<std::string>> GetStringList(const std::string& key, char separator = ',') const;
    /// A YAML mapping of scalars, or a scalar "k=v;k2=v2" (env form).
    Result<std::map<std::string, std::string>> GetStringMap(const std::string& key) const;
    /// The keys directly under `key` (a mapping), in file order.
    std::vector<std::string> ChildKeys(const std::string& key) const;
    /// The YAML text of a subtree, for modules that parse their own section.
    std::string SubtreeYaml(const std::string& key) const;

    /// Fails naming the first key (at any depth below the listed sections) that is not in
    /// `known` (dotted paths; a path ending in ".*" accepts any child). Catches typos in files.
    Status CheckKnownKeys(const std::set<std::string>& known) const;

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Parses a duration text as GetDuration does.
Result<std::chrono::milliseconds> ParseDuration(const std::string& text);
/// Parses a size text as GetBytes does.
Result<std::uint64_t> ParseBytes(const std::string& text);

/// The process environment as a map (read once at startup).
std::map<std::string, std::string> ProcessEnvironment();

}  // namespace orch
