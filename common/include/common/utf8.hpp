#pragma once

#include <cstddef>
#include <string_view>

namespace orch {

/// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.
/// The offset of the first byte that starts no well-formed sequence, or npos.
std::size_t FindInvalidUtf8(std::string_view text);
inline bool IsValidUtf8(std::string_view text) {
    return FindInvalidUtf8(text) == std::string_view::npos;
}

/// Text that means the same in every layer it passes: valid UTF-8 without NUL (C APIs and
/// PostgreSQL stop at or refuse a NUL, so the stored text would differ from the checked one).
inline bool IsStorableText(std::string_view text) {
    return text.find('\0') == std::string_view::npos && IsValidUtf8(text);
}

}  // namespace orch
