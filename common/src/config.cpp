#include "common/config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, not declared by <unistd.h> in C++

namespace orch {
namespace {

std::vector<std::string> SplitKey(const std::string& key) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(key);
    while (std::getline(in, part, '.')) {
        parts.push_back(part);
    }
    return parts;
}

// Walks without creating nodes; returns an undefined node when any part is missing.
YAML::Node Find(const YAML::Node& root, const std::string& key) {
    YAML::Node node(root);
    for (const auto& part : SplitKey(key)) {
        if (!node.IsMap()) {
            return YAML::Node(YAML::NodeType::Undefined);
        }
        const YAML::Node& view = node;
        YAML::Node child = view[part];
        if (!child.IsDefined()) {
            return YAML::Node(YAML::NodeType::Undefined);
        }
        node.reset(child);
    }
    return node;
}

// yaml-cpp nodes are handles: writing through operator[] of a handle writes into the tree.
void SetPath(YAML::Node node, const std::vector<std::string>& parts, std::size_t index, const std::string& value) {
    if (index + 1 == parts.size()) {
        node[parts[index]] = value;
        return;
    }
    if (!node[parts[index]].IsMap()) {
        node[parts[index]] = YAML::Node(YAML::NodeType::Map);
    }
    SetPath(node[parts[index]], parts, index + 1, value);
}

Error BadValue(const std::string& key, const std::string& what, const std::string& got) {
    return Error::InvalidArgument("config key '" + key + "': expected " + what + ", got '" + got + "'");
}

std::string Trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Result<double> ParseNumber(const std::string& text) {
    double value = 0;
    const auto* first = text.data();
    const auto* last = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last) {
        return Error::InvalidArgument("not a number");
    }
    return value;
}

Status CheckKnown(const YAML::Node& node, const std::string& prefix, const std::set<std::string>& known) {
    if (!node.IsMap()) {
        return Ok();
    }
    for (const auto& entry : node) {
        const std::string key =
            prefix.empty() ? entry.first.as<std::string>() : prefix + "." + entry.first.as<std::string>();
        if (known.count(key) != 0 || (!prefix.empty() && known.count(prefix + ".*") != 0)) {
            continue;
        }
        const bool is_section =
            std::any_of(known.begin(), known.end(), [&](const std::string& k) { return k.rfind(key + ".", 0) == 0; });
        if (!is_section) {
            return Error::InvalidArgument("config key '" + key + "' is not known (misspelt?)");
        }
        ORCH_RETURN_IF_ERROR(CheckKnown(entry.second, key, known));
    }
    return Ok();
}

}  // namespace

struct ConfigTree::Impl {
    YAML::Node root{YAML::NodeType::Map};
};

ConfigTree::ConfigTree() : impl_(std::make_unique<Impl>()) {}
ConfigTree::~ConfigTree() = default;
ConfigTree::ConfigTree(ConfigTree&&) noexcept = default;
ConfigTree& ConfigTree::operator=(ConfigTree&&) noexcept = default;
ConfigTree::ConfigTree(const ConfigTree& other) : impl_(std::make_unique<Impl>()) {
    impl_->root = YAML::Clone(other.impl_->root);
}
ConfigTree& ConfigTree::operator=(const ConfigTree& other) {
    if (this != &other) {
        impl_->root = YAML::Clone(other.impl_->root);
    }
    return *this;
}

Result<ConfigTree> ConfigTree::FromYaml(const std::string& text, const std::string& origin) {
    ConfigTree tree;
    try {
        YAML::Node root = YAML::Load(text);
        if (root.IsNull() || !root.IsDefined()) {
            return tree;
        }
        if (!root.IsMap()) {
            return Error::InvalidArgument(origin + ": the configuration must be a YAML mapping");
        }
        tree.impl_->root = root;
    } catch (const YAML::Exception& e) {
        return Error::InvalidArgument(
            origin + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg
        );
    }
    return tree;
}

Result<ConfigTree> ConfigTree::FromFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error::InvalidArgument("cannot read configuration file '" + path + "'");
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    return FromYaml(buf.str(), path);
}

void ConfigTree::Set(const std::string& key, const std::string& value) {
    const auto parts = SplitKey(key);
    if (!parts.empty()) {
        SetPath(impl_->root, parts, 0, value);
    }
}

std::vector<std::string> ConfigTree::ApplyEnvironment(
    const std::map<std::string, std::string>& env,
    const std::map<std::string, std::string>& aliases,
    const std::string& prefix
) {
    std::vector<std::string> applied;
    for (const auto& [name, value] : env) {
        if (auto alias = aliases.find(name); alias != aliases.end()) {
            Set(alias->second, value);
            applied.push_back(alias->second);
            continue;
        }
        if (name.rfind(prefix, 0) != 0 || name.find("__") == std::string::npos) {
            continue;
        }
        std::string key;
        const std::string rest = name.substr(prefix.size());
        for (std::size_t i = 0; i < rest.size(); ++i) {
            if (rest.compare(i, 2, "__") == 0) {
                key.push_back('.');
                ++i;
            } else {
                key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(rest[i]))));
            }
        }
        Set(key, value);
        applied.push_back(key);
    }
    return applied;
}

bool ConfigTree::Has(const std::string& key) const {
    return Find(impl_->root, key).IsDefined();
}

Result<std::string> ConfigTree::GetString(const std::string& key, const std::string& fallback) const {
    const YAML::Node node = Find(impl_->root, key);
    if (!node.IsDefined() || node.IsNull()) {
        return fallback;
    }
    if (!node.IsScalar()) {
        return Error::InvalidArgument("config key '" + key + "': expected a text value");
    }
    return node.Scalar();
}

Result<std::int64_t> ConfigTree::GetInt(
    const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max
) const {
    auto text = GetString(key, std::to_string(fallback));
    if (!text) {
        return std::move(text).error();
    }
    std::int64_t value = 0;
    const std::string& s = *text;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size()) {
        return BadValue(key, "an integer", s);
    }
    if (value < min || value > max) {
        return BadValue(key, "an integer from " + std::to_string(min) + " to " + std::to_string(max), s);
    }
    return value;
}

Result<bool> ConfigTree::GetBool(const std::string& key, bool fallback) const {
    auto text = GetString(key, fallback ? "true" : "false");
    if (!text) {
        return std::move(text).error();
    }
    std::string s = *text;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "yes" || s == "on" || s == "1") {
        return true;
    }
    if (s == "false" || s == "no" || s == "off" || s == "0") {
        return false;
    }
    return BadValue(key, "true or false", *text);
}

Result<double> ConfigTree::GetDouble(const std::string& key, double fallback) const {
    auto text = GetString(key, std::to_string(fallback));
    if (!text) {
        return std::move(text).error();
    }
    auto value = ParseNumber(*text);
    if (!value) {
        return BadValue(key, "a number", *text);
    }
    return *value;
}

Result<std::chrono::milliseconds> ConfigTree::GetDuration(const std::string& key, std::chrono::milliseconds fallback)
    const {
    if (!Has(key)) {
        return fallback;
    }
    auto text = GetString(key, "");
    if (!text) {
        return std::move(text).error();
    }
    auto value = ParseDuration(*text);
    if (!value) {
        return BadValue(key, "a duration like 250ms, 10s, 5m, 2h or 30d", *text);
    }
    return *value;
}

Result<std::uint64_t> ConfigTree::GetBytes(const std::string& key, std::uint64_t fallback) const {
    if (!Has(key)) {
        return fallback;
    }
    auto text = GetString(key, "");
    if (!text) {
        return std::move(text).error();
    }
    auto value = ParseBytes(*text);
    if (!value) {
        return BadValue(key, "a size like 512, 64KiB or 10MiB", *text);
    }
    return *value;
}

Result<std::vector<std::string>> ConfigTree::GetStringList(const std::string& key, char separator) const {
    const YAML::Node node = Find(impl_->root, key);
    std::vector<std::string> out;
    if (!node.IsDefined() || node.IsNull()) {
        return out;
    }
    if (node.IsScalar()) {
        std::istringstream in(node.Scalar());
        std::string item;
        while (std::getline(in, item, separator)) {
            if (!Trim(item).empty()) {
                out.push_back(Trim(item));
            }
        }
        return out;
    }
    if (!node.IsSequence()) {
        return Error::InvalidArgument("config key '" + key + "': expected a list");
    }
    for (const auto& item : node) {
        if (!item.IsScalar()) {
            return Error::InvalidArgument("config key '" + key + "': expected a list of text values");
        }
        out.push_back(item.Scalar());
    }
    return out;
}

Result<std::map<std::string, std::string>> ConfigTree::GetStringMap(const std::string& key) const {
    const YAML::Node node = Find(impl_->root, key);
    std::map<std::string, std::string> out;
    if (!node.IsDefined() || node.IsNull()) {
        return out;
    }
    if (node.IsScalar()) {
        std::istringstream in(node.Scalar());
        std::string pair;
        while (std::getline(in, pair, ';')) {
            if (Trim(pair).empty()) {
                continue;
            }
            const auto eq = pair.find('=');
            if (eq == std::string::npos) {
                return BadValue(key, "KEY=VALUE pairs separated by ';'", node.Scalar());
            }
            out[Trim(pair.substr(0, eq))] = Trim(pair.substr(eq + 1));
        }
        return out;
    }
    if (!node.IsMap()) {
        return Error::InvalidArgument("config key '" + key + "': expected a mapping");
    }
    for (const auto& entry : node) {
        if (!entry.second.IsScalar()) {
            return Error::InvalidArgument(
                "config key '" + key + "." + entry.first.as<std::string>() + "': expected a text value"
            );
        }
        out[entry.first.as<std::string>()] = entry.second.Scalar();
    }
    return out;
}

std::vector<std::string> ConfigTree::ChildKeys(const std::string& key) const {
    const YAML::Node node = key.empty() ? impl_->root : Find(impl_->root, key);
    std::vector<std::string> out;
    if (node.IsMap()) {
        for (const auto& entry : node) {
            out.push_back(entry.first.as<std::string>());
        }
    }
    return out;
}

std::string ConfigTree::SubtreeYaml(const std::string& key) const {
    const YAML::Node node = Find(impl_->root, key);
    if (!node.IsDefined()) {
        return {};
    }
    YAML::Emitter out;
    out << node;
    return out.c_str();
}

Status ConfigTree::CheckKnownKeys(const std::set<std::string>& known) const {
    return CheckKnown(impl_->root, "", known);
}

Result<std::chrono::milliseconds> ParseDuration(const std::string& raw) {
    const std::string text = Trim(raw);
    std::size_t split = 0;
    while (split < text.size() && (std::isdigit(static_cast<unsigned char>(text[split])) != 0 || text[split] == '.')) {
        ++split;
    }
    auto number = ParseNumber(text.substr(0, split));
    if (split == 0 || !number || *number < 0) {
        return Error::InvalidArgument("bad duration");
    }
    const std::string unit = text.substr(split);
    double factor_ms = 0;
    if (unit.empty() || unit == "s") {
        factor_ms = 1000;
    } else if (unit == "ms") {
        factor_ms = 1;
    } else if (unit == "m" || unit == "min") {
        factor_ms = 60'000;
    } else if (unit == "h") {
        factor_ms = 3'600'000;
    } else if (unit == "d") {
        factor_ms = 86'400'000;
    } else {
        return Error::InvalidArgument("bad duration unit");
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(*number * factor_ms));
}

Result<std::uint64_t> ParseBytes(const std::string& raw) {
    const std::string text = Trim(raw);
    std::size_t split = 0;
    while (split < text.size() && std::isdigit(static_cast<unsigned char>(text[split])) != 0) {
        ++split;
    }
    if (split == 0) {
        return Error::InvalidArgument("bad size");
    }
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + split, value);
    if (ec != std::errc()) {
        return Error::InvalidArgument("bad size");
    }
    const std::string unit = Trim(text.substr(split));
    static const std::map<std::string, std::uint64_t> kUnits = {
        {"", 1},
        {"B", 1},
        {"KiB", 1ull << 10},
        {"MiB", 1ull << 20},
        {"GiB", 1ull << 30},
        {"KB", 1000},
        {"MB", 1000'000},
        {"GB", 1000'000'000},
        {"K", 1ull << 10},
        {"M", 1ull << 20},
        {"G", 1ull << 30}};
    const auto it = kUnits.find(unit);
    if (it == kUnits.end()) {
        return Error::InvalidArgument("bad size unit");
    }
    return value * it->second;
}

std::map<std::string, std::string> ProcessEnvironment() {
    std::map<std::string, std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry(*e);
        const auto eq = entry.find('=');
        if (eq != std::string::npos) {
            env[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
    }
    return env;
}

}  // namespace orch
