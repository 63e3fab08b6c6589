#include "orchestrator/auth/base64.hpp"

#include <array>
#include <cstdint>

namespace orch::auth {
namespace {

constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kStdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t kInvalid = 0xff;

constexpr std::array<std::uint8_t, 256> MakeTable(std::string_view alphabet) {
    std::array<std::uint8_t, 256> table{};
    for (auto& entry : table) {
        entry = kInvalid;
    }
    for (std::size_t i = 0; i < alphabet.size(); ++i) {
        table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
    }
    return table;
}

constexpr auto kUrlTable = MakeTable(kUrlAlphabet);
constexpr auto kStdTable = MakeTable(kStdAlphabet);

std::string Encode(std::string_view bytes, std::string_view alphabet, bool pad) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v = (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16) |
                                (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                                static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        out.push_back(alphabet[(v >> 6) & 63]);
        out.push_back(alphabet[v & 63]);
    }
    const std::size_t rest = bytes.size() - i;
    if (rest == 0) {
        return out;
    }
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) {
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (rest == 2) {
        out.push_back(alphabet[(v >> 6) & 63]);
    }
    if (pad) {
        out.append(rest == 1 ? "==" : "=");
    }
    return out;
}

// Decodes unpadded text; rejects a dangling character and non-zero unused bits.
std::optional<std::string> DecodeUnpadded(std::string_view text, const std::array<std::uint8_t, 256>& table) {
    if (text.size() % 4 == 1) {
        return std::nullopt;
    }
    std::string out(text.size() * 6 / 8, '\0');
    std::size_t written = 0;
    std::uint32_t acc = 0;
    int bits = 0;
    for (const char c : text) {
        const std::uint8_t v = table[static_cast<unsigned char>(c)];
        if (v == kInvalid) {
            return std::nullopt;
        }
        acc = (acc << 6) | v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[written++] = static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if ((acc & ((1u << bits) - 1)) != 0) {
        return std::nullopt;
    }
    return out;
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
    return Encode(bytes, kUrlAlphabet, false);
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
    return DecodeUnpadded(text, kUrlTable);
}

std::string Base64Encode(std::string_view bytes) {
    return Encode(bytes, kStdAlphabet, true);
}

std::optional<std::string> Base64Decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
        ++padding;
    }
    return DecodeUnpadded(text.substr(0, text.size() - padding), kStdTable);
}

}  // namespace orch::auth
