#include "gpu_model.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace orch::placement {
namespace {

bool SameLetters(std::string_view a, std::string_view b);

std::vector<std::string> Words(std::string_view text) {
    std::vector<std::string> words;
    std::string current;
    for (const char c : text) {
        if (c == ' ' || c == '-' || c == '_') {
            if (!current.empty()) {
                words.push_back(std::move(current));
                current.clear();
            }
            continue;
        }
        current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    if (!current.empty()) {
        words.push_back(std::move(current));
    }
    return words;
}

}  // namespace

std::string Lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return out;
}

bool SameWord(std::string_view requested, std::string_view offered) {
    return requested.empty() || SameLetters(requested, offered);
}

namespace {

bool IsSeparator(char c) {
    return c == ' ' || c == '-' || c == '_';
}

// The next word of `text` from `pos` (skipping separators); empty at the end.
std::string_view NextWord(std::string_view text, std::size_t& pos) {
    while (pos < text.size() && IsSeparator(text[pos])) {
        ++pos;
    }
    const std::size_t start = pos;
    while (pos < text.size() && !IsSeparator(text[pos])) {
        ++pos;
    }
    return text.substr(start, pos - start);
}

bool SameLetters(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// Whether the words of `wanted` appear, in order and adjacent, in `offered` starting at `pos`.
bool WordsAt(std::string_view wanted, std::string_view offered, std::size_t pos) {
    std::size_t w = 0;
    for (std::string_view word = NextWord(wanted, w); !word.empty(); word = NextWord(wanted, w)) {
        if (!SameLetters(word, NextWord(offered, pos))) {
            return false;
        }
    }
    return true;
}

}  // namespace

// Allocation-free: placement runs this for every flavor of every site.
bool GpuModelMatches(std::string_view requested, std::string_view offered) {
    std::size_t probe = 0;
    if (NextWord(requested, probe).empty()) {
        return requested.empty();
    }
    std::size_t pos = 0;
    while (true) {
        while (pos < offered.size() && IsSeparator(offered[pos])) {
            ++pos;
        }
        if (pos >= offered.size()) {
            return false;
        }
        if (WordsAt(requested, offered, pos)) {
            return true;
        }
        NextWord(offered, pos);
    }
}

std::optional<std::uint64_t> MemoryFromModelName(std::string_view model) {
    for (const auto& word : Words(model)) {
        if (word.size() < 3 || word.compare(word.size() - 2, 2, "gb") != 0) {
            continue;
        }
        const std::string digits = word.substr(0, word.size() - 2);
        if (!digits.empty() &&
            std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
            return static_cast<std::uint64_t>(std::stoull(digits)) * 1024;
        }
    }
    return std::nullopt;
}

std::string_view TrimSlash(std::string_view text) {
    while (!text.empty() && text.back() == '/') {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace orch::placement
