#pragma once

#include <string>
#include <string_view>

namespace orch::tosca {

/// A YAML path built on the stack while walking a document (`a.b[2].c`); rendered only when a
/// diagnostic needs it, so walking costs no allocation. A child points to its parent: segments and
/// parents must outlive it. Children of the empty root do not point to it, so
/// `const Path p = Path().Key("x");` is safe; deeper chains stored in a variable must name each level.
class Path {
   public:
    Path() = default;

    Path Key(std::string_view key) const { return Path(empty() ? nullptr : this, key, -1); }
    Path Index(std::size_t index) const { return Path(empty() ? nullptr : this, {}, static_cast<long>(index)); }

    std::string Str() const;
    bool empty() const { return parent_ == nullptr && key_.empty() && index_ < 0; }

   private:
    Path(const Path* parent, std::string_view key, long index) : parent_(parent), key_(key), index_(index) {}
    void AppendTo(std::string& out) const;

    const Path* parent_ = nullptr;
    std::string_view key_;
    long index_ = -1;
};

}  // namespace orch::tosca
