#include "common/json_text.hpp"

#include <array>
#include <cstdint>

namespace orch {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Bytes that pass through unchanged: printable ASCII except the quote and the backslash, and
// every byte of 0x7F. Looked up once per byte on the hot path (list pages are mostly ASCII).
constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c) {
        plain[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    }
    return plain;
}();

struct Utf8Lead {
    std::size_t length = 0;  // 0: not a lead byte
    unsigned char second_min = 0x80;
    unsigned char second_max = 0xBF;
};

// The well-formed sequences of Unicode Table 3-7: the lead byte fixes the length and the range
// of the second byte (this excludes overlong forms, surrogates and code points past U+10FFFF).
Utf8Lead LeadOf(unsigned char c) {
    if (c >= 0xC2 && c <= 0xDF) {
        return {2, 0x80, 0xBF};
    }
    if (c == 0xE0) {
        return {3, 0xA0, 0xBF};
    }
    if (c == 0xED) {
        return {3, 0x80, 0x9F};
    }
    if (c >= 0xE1 && c <= 0xEF) {
        return {3, 0x80, 0xBF};
    }
    if (c == 0xF0) {
        return {4, 0x90, 0xBF};
    }
    if (c == 0xF4) {
        return {4, 0x80, 0x8F};
    }
    if (c >= 0xF1 && c <= 0xF3) {
        return {4, 0x80, 0xBF};
    }
    return {};
}

// Appends the UTF-8 sequence starting at text[i] (a byte >= 0x80) and returns where the next
// one starts. An ill-formed sequence is replaced by one U+FFFD covering its longest well-formed
// prefix (or the lone bad byte), and scanning resumes at the byte that broke it, which may
// start a valid sequence itself: nlohmann's replace handler does the same.
std::size_t AppendUtf8(std::string& out, std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) {
        return static_cast<unsigned char>(text[k]);
    };
    const Utf8Lead lead = LeadOf(byte(i));
    if (lead.length == 0) {
        out += kReplacement;
        return i + 1;
    }
    std::size_t k = i + 1;
    for (; k < i + lead.length; ++k) {
        if (k >= text.size()) {
            out += kReplacement;
            return k;
        }
        const unsigned char lo = k == i + 1 ? lead.second_min : 0x80;
        const unsigned char hi = k == i + 1 ? lead.second_max : 0xBF;
        if (byte(k) < lo || byte(k) > hi) {
            out += kReplacement;
            return k;
        }
    }
    out.append(text.substr(i, lead.length));
    return k;
}

void AppendEscapedAscii(std::string& out, unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
    }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
    out.push_back('"');
    std::size_t i = 0;
    while (i < text.size()) {
        // Copy the longest run of plain bytes at once: one append instead of one per byte.
        std::size_t run = i;
        while (run < text.size() && kPlain[static_cast<unsigned char>(text[run])]) {
            ++run;
        }
        out.append(text.data() + i, run - i);
        i = run;
        if (i == text.size()) {
            break;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            i = AppendUtf8(out, text, i);
        } else {
            AppendEscapedAscii(out, c);
            ++i;
        }
    }
    out.push_back('"');
}

std::string JsonQuote(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    AppendJsonString(out, text);
    return out;
}

}  // namespace orch
