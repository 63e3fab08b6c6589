#pragma once

#include "common/config.hpp"
#include "common/result.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orch::auth {

/// Reads the keys of one configuration section into fields, keeping the first error, so a loader
/// is a flat list of assignments. A missing key leaves the field's default. Errors name the key.
class SectionReader {
   public:
    SectionReader(const ConfigTree& tree, std::string prefix) : tree_(tree), prefix_(std::move(prefix)) {}

    void Text(const std::string& key, std::string& out) { Take(tree_.GetString(Key(key), out), out); }
    /// A YAML list, or space-separated words.
    void List(const std::string& key, std::vector<std::string>& out) {
        if (tree_.Has(Key(key))) {
            Take(tree_.GetStringList(Key(key), ' '), out);
        }
    }
    void Flag(const std::string& key, bool& out) { Take(tree_.GetBool(Key(key), out), out); }
    void Int(const std::string& key, std::int64_t min, std::int64_t max, std::int64_t& out) {
        Take(tree_.GetInt(Key(key), out, min, max), out);
    }
    void Bytes(const std::string& key, std::uint64_t min, std::uint64_t max, std::uint64_t& out);
    void Duration(
        const std::string& key,
        std::chrono::milliseconds min,
        std::chrono::milliseconds max,
        std::chrono::milliseconds& out
    );
    void Seconds(const std::string& key, std::chrono::seconds max, std::chrono::seconds& out);

    template <typename Enum>
    void OneOf(const std::string& key, const std::vector<std::pair<std::string, Enum>>& choices, Enum& out) {
        std::string fallback;
        for (const auto& [name, value] : choices) {
            fallback = value == out ? name : fallback;
        }
        std::string text = fallback;
        Text(key, text);
        if (!status_) {
            return;
        }
        std::string allowed;
        for (const auto& [name, value] : choices) {
            if (name == text) {
                out = value;
                return;
            }
            allowed += (allowed.empty() ? "" : ", ") + name;
        }
        Fail(key, "expected one of " + allowed + ", got '" + text + "'");
    }

    /// Records an error for `key` unless one is already recorded.
    void Fail(const std::string& key, const std::string& what);
    std::string Key(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
    const Status& status() const { return status_; }

   private:
    template <typename T, typename U>
    void Take(Result<T> value, U& out) {
        if (!status_) {
            return;
        }
        if (!value) {
            status_ = std::move(value).error();
            return;
        }
        out = static_cast<U>(*value);
    }

    const ConfigTree& tree_;
    const std::string prefix_;
    Status status_;
};

}  // namespace orch::auth
