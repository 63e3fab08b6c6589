#include "cron.hpp"

#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <sstream>
#include <vector>

namespace orch::sim {
namespace {

std::vector<std::string> Split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, sep)) {
        out.push_back(item);
    }
    return out;
}

bool ToInt(const std::string& text, int& out) {
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

// Sets the bits a field allows ("*/15", "1-5", "0,30", "7"); false on syntax errors.
template <std::size_t N>
bool ParseField(const std::string& field, int min, int max, std::bitset<N>& bits, bool& any) {
    any = field == "*" || field == "?";
    for (const auto& part : Split(field, ',')) {
        int step = 1;
        std::string range = part;
        if (const auto slash = part.find('/'); slash != std::string::npos) {
            if (!ToInt(part.substr(slash + 1), step) || step <= 0) {
                return false;
            }
            range = part.substr(0, slash);
        }
        int lo = min;
        int hi = max;
        if (range != "*" && range != "?") {
            const auto dash = range.find('-');
            if (dash == std::string::npos) {
                if (!ToInt(range, lo)) {
                    return false;
                }
                hi = part.find('/') == std::string::npos ? lo : max;
            } else if (!ToInt(range.substr(0, dash), lo) || !ToInt(range.substr(dash + 1), hi)) {
                return false;
            }
        }
        if (lo < min || hi > max || lo > hi) {
            return false;
        }
        for (int v = lo; v <= hi; v += step) {
            bits.set(static_cast<std::size_t>(v));
        }
    }
    return true;
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(const std::string& text) {
    static const std::map<std::string, std::string> kMacros = {
        {"@yearly", "0 0 1 1 *"},
        {"@annually", "0 0 1 1 *"},
        {"@monthly", "0 0 1 * *"},
        {"@weekly", "0 0 * * 0"},
        {"@daily", "0 0 * * *"},
        {"@midnight", "0 0 * * *"},
        {"@hourly", "0 * * * *"},
    };
    const auto macro = kMacros.find(text);
    const std::string expr = macro == kMacros.end() ? text : macro->second;
    std::vector<std::string> fields;
    std::istringstream in(expr);
    for (std::string f; in >> f;) {
        fields.push_back(f);
    }
    const Error bad =
        Error::InvalidArgument("Expected exactly 5 fields, found " + std::to_string(fields.size()) + ": " + text);
    if (fields.size() != 5) {
        return bad;
    }
    CronSchedule s;
    bool unused = false;
    if (!ParseField(fields[0], 0, 59, s.minutes_, unused) || !ParseField(fields[1], 0, 23, s.hours_, unused) ||
        !ParseField(fields[2], 1, 31, s.days_, s.any_day_) || !ParseField(fields[3], 1, 12, s.months_, unused) ||
        !ParseField(fields[4], 0, 7, s.weekdays_, s.any_weekday_)) {
        return Error::InvalidArgument("invalid cron expression: " + text);
    }
    if (s.weekdays_.test(7)) {
        s.weekdays_.set(0);  // 7 is Sunday too
    }
    return s;
}

bool CronSchedule::Matches(double unix_seconds) const {
    const auto t = static_cast<std::time_t>(std::floor(unix_seconds));
    std::tm tm{};
    gmtime_r(&t, &tm);
    if (!minutes_.test(static_cast<std::size_t>(tm.tm_min)) || !hours_.test(static_cast<std::size_t>(tm.tm_hour)) ||
        !months_.test(static_cast<std::size_t>(tm.tm_mon + 1))) {
        return false;
    }
    const bool day = days_.test(static_cast<std::size_t>(tm.tm_mday));
    const bool weekday = weekdays_.test(static_cast<std::size_t>(tm.tm_wday));
    // Cron's rule: when both day fields are restricted, either may match.
    if (!any_day_ && !any_weekday_) {
        return day || weekday;
    }
    return day && weekday;
}

}  // namespace orch::sim
