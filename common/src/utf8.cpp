#include "common/utf8.hpp"

#include <cstdint>

namespace orch {

std::size_t FindInvalidUtf8(std::string_view text) {
    const auto* begin = reinterpret_cast<const std::uint8_t*>(text.data());  // NOLINT: bytes of the text
    const auto* p = begin;
    const auto* end = p + text.size();
    while (p < end) {
        const std::uint8_t c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int extra = 0;
        std::uint8_t lo = 0x80;
        std::uint8_t hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            extra = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
            hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
        } else {
            return static_cast<std::size_t>(p - begin);
        }
        if (end - p <= extra) {
            return static_cast<std::size_t>(p - begin);
        }
        if (p[1] < lo || p[1] > hi) {
            return static_cast<std::size_t>(p - begin);
        }
        for (int i = 2; i <= extra; ++i) {
            if (p[i] < 0x80 || p[i] > 0xBF) {
                return static_cast<std::size_t>(p - begin);
            }
        }
        p += extra + 1;
    }
    return std::string_view::npos;
}

}  // namespace orch
