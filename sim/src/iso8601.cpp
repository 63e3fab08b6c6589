#include "iso8601.hpp"

#include <cctype>
#include <charconv>
#include <ctime>

namespace orch::sim {
namespace {

bool ReadDigits(const std::string& text, std::size_t& pos, std::size_t count, int& out) {
    if (pos + count > text.size()) {
        return false;
    }
    out = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const char c = text[pos + i];
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            return false;
        }
        out = out * 10 + (c - '0');
    }
    pos += count;
    return true;
}

bool Expect(const std::string& text, std::size_t& pos, char c) {
    if (pos < text.size() && text[pos] == c) {
        ++pos;
        return true;
    }
    return false;
}

}  // namespace

Result<double> ParseIsoDateTime(const std::string& text) {
    const Error bad = Error::InvalidArgument("'" + text + "' is not an ISO 8601 date-time (e.g. 2015-12-25T17:22:00Z)");
    std::tm tm{};
    std::size_t pos = 0;
    int year = 0;
    int month = 0;
    if (!ReadDigits(text, pos, 4, year) || !Expect(text, pos, '-') || !ReadDigits(text, pos, 2, month) ||
        !Expect(text, pos, '-') || !ReadDigits(text, pos, 2, tm.tm_mday) || !Expect(text, pos, 'T') ||
        !ReadDigits(text, pos, 2, tm.tm_hour) || !Expect(text, pos, ':') || !ReadDigits(text, pos, 2, tm.tm_min)) {
        return bad;
    }
    if (Expect(text, pos, ':') && !ReadDigits(text, pos, 2, tm.tm_sec)) {
        return bad;
    }
    double fraction = 0;
    if (Expect(text, pos, '.')) {
        double scale = 0.1;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
            fraction += (text[pos++] - '0') * scale;
            scale /= 10;
        }
    }
    int offset = 0;
    if (Expect(text, pos, 'Z')) {
        offset = 0;
    } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
        const int sign = text[pos++] == '-' ? -1 : 1;
        int hours = 0;
        int minutes = 0;
        if (!ReadDigits(text, pos, 2, hours)) {
            return bad;
        }
        Expect(text, pos, ':');
        if (!ReadDigits(text, pos, 2, minutes)) {
            return bad;
        }
        offset = sign * (hours * 3600 + minutes * 60);
    }
    if (pos != text.size() || month < 1 || month > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60) {
        return bad;
    }
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    return static_cast<double>(timegm(&tm)) - offset + fraction;
}

Result<double> ParseIsoDuration(const std::string& text) {
    const Error bad = Error::InvalidArgument("'" + text + "' is not an ISO 8601 duration (e.g. PT10S, P1D)");
    if (text.size() < 2 || text[0] != 'P') {
        return bad;
    }
    double total = 0;
    bool in_time = false;
    bool any = false;
    std::string number;
    for (std::size_t i = 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == 'T' && !in_time && number.empty()) {
            in_time = true;
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            number += c;
            continue;
        }
        if (number.empty()) {
            return bad;
        }
        double n = 0;
        const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
        if (ec != std::errc() || ptr != number.data() + number.size()) {
            return bad;
        }
        number.clear();
        any = true;
        if (!in_time && c == 'Y') {
            total += n * 365 * 86400;
        } else if (!in_time && c == 'M') {
            total += n * 30 * 86400;
        } else if (!in_time && c == 'W') {
            total += n * 7 * 86400;
        } else if (!in_time && c == 'D') {
            total += n * 86400;
        } else if (in_time && c == 'H') {
            total += n * 3600;
        } else if (in_time && c == 'M') {
            total += n * 60;
        } else if (in_time && c == 'S') {
            total += n;
        } else {
            return bad;
        }
    }
    if (!any || !number.empty()) {
        return bad;
    }
    return total;
}

Result<IsoSchedule> ParseIsoSchedule(const std::string& text) {
    const Error bad = Error::InvalidArgument(
        "'" + text +
        "' is not an ISO 8601 repeating interval (R[n]/[start]/<period>, e.g. R5/2024-01-01T00:00:00Z/PT1H)"
    );
    const auto first = text.find('/');
    const auto second = first == std::string::npos ? std::string::npos : text.find('/', first + 1);
    if (text.empty() || text[0] != 'R' || second == std::string::npos) {
        return bad;
    }
    IsoSchedule out;
    const std::string reps = text.substr(1, first - 1);
    if (!reps.empty()) {
        if (reps.size() > 9 || reps.find_first_not_of("0123456789") != std::string::npos) {
            return bad;
        }
        out.repetitions = std::stol(reps);
    }
    const std::string start = text.substr(first + 1, second - first - 1);
    if (!start.empty()) {
        auto parsed = ParseIsoDateTime(start);
        if (!parsed) {
            return parsed.error();
        }
        out.start = *parsed;
    }
    auto period = ParseIsoDuration(text.substr(second + 1));
    if (!period) {
        return period.error();
    }
    out.period = *period;
    return out;
}

}  // namespace orch::sim
