#pragma once

#include "common/json.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca::yaml {

enum class NodeKind : std::uint8_t { kNull, kScalar, kSequence, kMapping };

/// 1-based position of a node in its source; 0 when the node was not read from a file.
struct Mark {
    int line = 0;
    int column = 0;
};

struct Node;

struct Entry {
    const Node* key = nullptr;
    const Node* value = nullptr;
};

/// An immutable YAML node with its position. Nodes live in an Arena; aliases share the anchored
/// node (the loader bounds the expanded size, so walking a shared subtree twice is safe).
struct Node {
    NodeKind kind = NodeKind::kNull;
    /// Plain (unquoted, untagged) scalar: its YAML type (bool, int, float) comes from its text.
    /// Quoted, block and !!str scalars are strings.
    bool plain = false;
    Mark mark;
    const std::string* source = nullptr;  ///< the file name, owned by the arena
    std::uint64_t size = 1;               ///< nodes in this subtree, shared subtrees counted each time
    std::uint64_t bytes = 0;              ///< text bytes (scalars, keys) in this subtree, counted the same way
    std::string text;                     ///< scalar text
    std::vector<const Node*> items;       ///< sequence items
    std::vector<Entry> entries;           ///< mapping entries, keys unique (the last duplicate wins)

    bool IsNull() const { return kind == NodeKind::kNull; }
    bool IsScalar() const { return kind == NodeKind::kScalar; }
    bool IsSequence() const { return kind == NodeKind::kSequence; }
    bool IsMapping() const { return kind == NodeKind::kMapping; }

    /// The value of `key` in a mapping; null when absent or when this is not a mapping.
    const Node* Find(std::string_view key) const;
    const std::string& SourceName() const;
};

/// Owns nodes (stable addresses) and the name of the file they came from.
class Arena {
   public:
    explicit Arena(std::string source_name);
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    Node* New(NodeKind kind, Mark mark = {});
    /// A string scalar (quoted: never re-typed) and a plain scalar (typed from its text).
    const Node* Str(std::string text, Mark mark = {});
    const Node* Plain(std::string text, Mark mark = {});
    const Node* Null(Mark mark = {});
    /// A string scalar reported at `origin`'s position (results of concat, token, ...).
    const Node* StrAt(std::string text, const Node& origin);

    /// Copies a JSON value into nodes: strings become quoted scalars, numbers and booleans plain
    /// scalars, so they are typed exactly like the same value written in YAML.
    const Node* FromJson(const Json& value, Mark mark = {});

    const std::string& source_name() const { return *source_; }
    std::size_t node_count() const { return nodes_.size(); }

   private:
    std::unique_ptr<std::string> source_;
    std::deque<Node> nodes_;
};

/// A loaded document: the arena that owns it and its root (null when it could not be loaded).
struct Document {
    std::shared_ptr<Arena> arena;
    const Node* root = nullptr;
};

// --- YAML scalar resolution (YAML 1.2 core schema plus the YAML 1.1 booleans yes/no/on/off,
// which the SnakeYAML and PyYAML readers of real templates accept). ---

enum class ScalarType { kNull, kBool, kInt, kFloat, kString };

ScalarType ResolveScalar(const Node& node);
std::optional<bool> ParseYamlBool(std::string_view text);
std::optional<std::int64_t> ParseYamlInt(std::string_view text);
std::optional<double> ParseYamlFloat(std::string_view text);

/// The node as JSON with YAML typing (plain scalars resolved, quoted ones strings). Shared
/// (aliased) subtrees are copied.
Json ToJson(const Node& node);

/// A short human rendering of a value for messages: scalars as text, collections abbreviated.
std::string Describe(const Node& node);

/// True when `node` is a mapping whose only key is an intrinsic function name (`token` only with
/// a list of arguments: a Credential's {token: secret} is data).
std::optional<std::string_view> FunctionName(const Node& node);

}  // namespace orch::tosca::yaml
