#include "values/primitives.hpp"

#include <charconv>

namespace orch::tosca {
namespace {

bool IsDigit(char c) {
    return c >= '0' && c <= '9';
}

std::optional<std::int64_t> Digits(std::string_view text) {
    if (text.empty() || text.size() > 18) {
        return std::nullopt;
    }
    for (char c : text) {
        if (!IsDigit(c)) {
            return std::nullopt;
        }
    }
    std::int64_t value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

/// Reads exactly `count` digits at `pos`.
std::optional<int> Fixed(std::string_view text, std::size_t& pos, std::size_t count) {
    if (pos + count > text.size()) {
        return std::nullopt;
    }
    int value = 0;
    for (std::size_t i = 0; i < count; ++i) {
        if (!IsDigit(text[pos + i])) {
            return std::nullopt;
        }
        value = value * 10 + (text[pos + i] - '0');
    }
    pos += count;
    return value;
}

/// 1 or 2 digits.
std::optional<int> Short(std::string_view text, std::size_t& pos) {
    if (pos >= text.size() || !IsDigit(text[pos])) {
        return std::nullopt;
    }
    int value = text[pos++] - '0';
    if (pos < text.size() && IsDigit(text[pos])) {
        value = value * 10 + (text[pos++] - '0');
    }
    return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool ValidDate(int y, int m, int d) {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) {
        return false;
    }
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

void SkipSpaces(std::string_view text, std::size_t& pos) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
        ++pos;
    }
}

}  // namespace

std::optional<Version> ParseVersion(std::string_view text) {
    Version v;
    std::size_t start = 0;
    int part = 0;
    while (start <= text.size()) {
        const std::size_t dot = text.find('.', start);
        const std::string_view piece =
            text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (part < 3) {
            const auto number = Digits(piece);
            if (!number) {
                return std::nullopt;
            }
            v.numbers[static_cast<std::size_t>(part)] = *number;
        } else if (part == 3) {
            // qualifier[-build]
            const std::size_t dash = piece.find('-');
            v.qualifier = std::string(piece.substr(0, dash));
            if (v.qualifier.empty()) {
                return std::nullopt;
            }
            if (dash != std::string_view::npos) {
                const auto build = Digits(piece.substr(dash + 1));
                if (!build) {
                    return std::nullopt;
                }
                v.build = *build;
            }
        } else {
            return std::nullopt;
        }
        ++part;
        if (dot == std::string_view::npos) {
            break;
        }
        start = dot + 1;
    }
    // A bare integer ("2") is read as 2.0 by YAML-typed parsers; the grammar wants major.minor.
    return part >= 1 ? std::optional<Version>(v) : std::nullopt;
}

int CompareVersions(const Version& a, const Version& b) {
    for (std::size_t i = 0; i < 3; ++i) {
        if (a.numbers[i] != b.numbers[i]) {
            return a.numbers[i] < b.numbers[i] ? -1 : 1;
        }
    }
    if (a.qualifier != b.qualifier) {
        return a.qualifier < b.qualifier ? -1 : 1;
    }
    if (a.build != b.build) {
        return a.build < b.build ? -1 : 1;
    }
    return 0;
}

std::optional<Timestamp> ParseTimestamp(std::string_view text) {
    std::size_t pos = 0;
    const auto year = Fixed(text, pos, 4);
    if (!year || pos >= text.size() || text[pos++] != '-') {
        return std::nullopt;
    }
    const auto month = Short(text, pos);
    if (!month || pos >= text.size() || text[pos++] != '-') {
        return std::nullopt;
    }
    const auto day = Short(text, pos);
    if (!day || !ValidDate(*year, *month, *day)) {
        return std::nullopt;
    }
    Timestamp ts;
    ts.seconds = DaysFromCivil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)) * 86400;
    if (pos == text.size()) {
        return ts;  // date only
    }
    if (text[pos] == 'T' || text[pos] == 't') {
        ++pos;
    } else {
        SkipSpaces(text, pos);
    }
    const auto hour = Short(text, pos);
    if (!hour || pos >= text.size() || text[pos++] != ':') {
        return std::nullopt;
    }
    const auto minute = Fixed(text, pos, 2);
    if (!minute || pos >= text.size() || text[pos++] != ':') {
        return std::nullopt;
    }
    const auto second = Fixed(text, pos, 2);
    if (!second || *hour > 23 || *minute > 59 || *second > 60) {
        return std::nullopt;
    }
    ts.seconds += *hour * 3600 + *minute * 60 + *second;
    if (pos < text.size() && text[pos] == '.') {
        ++pos;
        std::int64_t scale = 100'000'000;
        const std::size_t start = pos;
        while (pos < text.size() && IsDigit(text[pos])) {
            ts.nanos += (text[pos] - '0') * scale;
            scale /= 10;
            ++pos;
        }
        if (pos == start) {
            return std::nullopt;
        }
    }
    SkipSpaces(text, pos);
    if (pos == text.size() || text[pos] == 'Z' || text[pos] == 'z') {
        return pos == text.size() || pos + 1 == text.size() ? std::optional<Timestamp>(ts) : std::nullopt;
    }
    if (text[pos] != '+' && text[pos] != '-') {
        return std::nullopt;
    }
    const int sign = text[pos++] == '-' ? -1 : 1;
    const auto tz_hour = Short(text, pos);
    if (!tz_hour) {
        return std::nullopt;
    }
    int tz_minute = 0;
    if (pos < text.size() && text[pos] == ':') {
        ++pos;
        const auto m = Fixed(text, pos, 2);
        if (!m) {
            return std::nullopt;
        }
        tz_minute = *m;
    }
    if (pos != text.size()) {
        return std::nullopt;
    }
    ts.seconds -= sign * (*tz_hour * 3600 + tz_minute * 60);
    return ts;
}

}  // namespace orch::tosca
