#include "connectors/naming.hpp"

#include <cctype>
#include <set>

namespace orch::connectors {
namespace {

std::string Sanitize(std::string_view text, const std::function<bool(char)>& allowed, char replacement) {
    std::string out;
    for (const char raw : text) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
        out += allowed(c) ? c : replacement;
    }
    return out;
}

std::string TrimEnds(const std::string& text, std::string_view junk) {
    const auto begin = text.find_first_not_of(junk);
    if (begin == std::string::npos) {
        return "";
    }
    const auto end = text.find_last_not_of(junk);
    return text.substr(begin, end - begin + 1);
}

bool IsLowerAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace

std::string DnsLabel(std::string_view text, std::size_t max) {
    std::string out = TrimEnds(
        Sanitize(
            text, [](char c) { return IsLowerAlnum(c) || c == '-'; }, '-'
        ),
        "-"
    );
    if (out.size() > max) {
        out = TrimEnds(out.substr(0, max), "-");
    }
    return out.empty() ? "x" : out;
}

std::string Dns1035Label(std::string_view text, std::size_t max) {
    std::string out = DnsLabel(text, max);
    if (!(out[0] >= 'a' && out[0] <= 'z')) {
        out = DnsLabel("n-" + out, max);
    }
    return out;
}

std::string MarathonIdSegment(std::string_view text) {
    std::string out = TrimEnds(
        Sanitize(
            text, [](char c) { return IsLowerAlnum(c) || c == '-' || c == '.'; }, '-'
        ),
        "-."
    );
    return out.empty() ? "app" : out;
}

std::string ChronosName(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
        out += ok ? c : '-';
    }
    return out.empty() ? "job" : out;
}

std::vector<std::string> UniqueNames(
    const std::vector<std::string>& raw, const std::function<std::string(std::string_view)>& sanitize, std::size_t max
) {
    std::vector<std::string> out;
    std::set<std::string> taken;
    for (const auto& text : raw) {
        const std::string base = sanitize(text);
        std::string name = base;
        for (int n = 2; !taken.insert(name).second; ++n) {
            const std::string suffix = "-" + std::to_string(n);
            name = base.substr(0, max > suffix.size() ? std::min(base.size(), max - suffix.size()) : 0) + suffix;
        }
        out.push_back(name);
    }
    return out;
}

}  // namespace orch::connectors
