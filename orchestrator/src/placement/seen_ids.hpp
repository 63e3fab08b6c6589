#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace orch::placement {

/// A set of strings seen, for de-duplicating thousands of ids per placement: open addressing in
/// one array, so adding an id allocates nothing (std::unordered_set allocates a node per id).
class SeenIds {
   public:
    explicit SeenIds(std::size_t expected) {
        std::size_t size = 16;
        while (size < expected * 2) {
            size *= 2;
        }
        slots_.resize(size);
    }
    /// True when `id` was not seen before (and remembers it). The views must outlive the set.
    bool Insert(std::string_view id) {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = std::hash<std::string_view>{}(id)&mask;; i = (i + 1) & mask) {
            if (slots_[i].data() == nullptr) {
                slots_[i] = id.data() == nullptr ? std::string_view("") : id;
                return true;
            }
            if (slots_[i] == id) {
                return false;
            }
        }
    }

   private:
    std::vector<std::string_view> slots_;  ///< a null data() marks a free slot
};

}  // namespace orch::placement
