#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace orch::placement {

/// An integer sort key and what it belongs to.
struct KeyedIndex {
    std::uint64_t key;
    std::uint32_t index;
};

/// Sorts by key, smallest first, looking at the low `bits` bits only (higher bits must be zero);
/// equal keys keep their order. Least-significant-digit radix sort, 11 bits per pass: ranking
/// sorts thousands of services per placement, and std::sort's comparisons of random keys were
/// mispredicted branches, half of the ranking's time (9-12 % of a placement). A pass whose digit
/// is the same for every key is skipped.
inline void RadixSort(std::vector<KeyedIndex>& items, int bits) {
    constexpr int kDigitBits = 11;
    constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
    if (items.size() < 2) {
        return;
    }
    std::vector<KeyedIndex> scratch(items.size());
    std::array<std::uint32_t, kBuckets> count{};
    for (int shift = 0; shift < bits; shift += kDigitBits) {
        count.fill(0);
        for (const auto& item : items) {
            ++count[(item.key >> shift) & (kBuckets - 1)];
        }
        if (count[(items.front().key >> shift) & (kBuckets - 1)] == items.size()) {
            continue;  // one digit for all: this pass would not move anything
        }
        std::uint32_t offset = 0;
        for (auto& c : count) {
            const auto n = c;
            c = offset;
            offset += n;
        }
        for (const auto& item : items) {
            scratch[count[(item.key >> shift) & (kBuckets - 1)]++] = item;
        }
        items.swap(scratch);
    }
}

/// How many bits `value` needs (0 for 0).
inline int BitWidth(std::uint64_t value) {
    int bits = 0;
    while (value != 0) {
        ++bits;
        value >>= 1;
    }
    return bits;
}

}  // namespace orch::placement
