// ISO 8601 repeating intervals (the Chronos/TOSCA way to write a schedule) -> cron expressions.
#include "connectors/kubernetes_connector.hpp"

#include <cctype>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace orch::connectors {
namespace {

bool LooksLikeCron(const std::string& text) {
    if (!text.empty() && text[0] == '@') {
        return true;
    }
    std::istringstream in(text);
    int fields = 0;
    for (std::string f; in >> f;) {
        ++fields;
    }
    return fields == 5;
}

// Seconds of a duration "PnW", "PnD", "PTnH", "PTnM", "PTnS" (combinations allowed); -1 if not
// one, -2 for a month period (no fixed length).
long long PeriodSeconds(const std::string& text) {
    if (text == "P1M") {
        return -2;
    }
    if (text.size() < 2 || text[0] != 'P') {
        return -1;
    }
    long long total = 0;
    long long number = -1;
    bool in_time = false;
    for (std::size_t i = 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == 'T') {
            in_time = true;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            number = (number < 0 ? 0 : number) * 10 + (c - '0');
            if (number > 100'000'000) {
                return -1;
            }
        } else {
            if (number < 0) {
                return -1;
            }
            const long long unit = !in_time && c == 'W'   ? 604800
                                   : !in_time && c == 'D' ? 86400
                                   : in_time && c == 'H'  ? 3600
                                   : in_time && c == 'M'  ? 60
                                   : in_time && c == 'S'  ? 1
                                                          : -1;
            if (unit < 0) {
                return -1;
            }
            total += number * unit;
            number = -1;
        }
    }
    return number < 0 && total > 0 ? total : -1;
}

bool ParseStart(const std::string& text, std::tm& tm) {
    if (text.empty()) {
        return true;
    }
    std::istringstream in(text);
    in >> std::get_time(&tm, "%Y-%m-%dT%H:%M");
    return !in.fail();
}

std::string Field(int start, int step, int max) {
    if (step == 1) {
        return "*";
    }
    return start == 0 ? "*/" + std::to_string(step)
                      : std::to_string(start) + "-" + std::to_string(max) + "/" + std::to_string(step);
}

}  // namespace

ConnectorResult<std::string> IsoScheduleToCron(const std::string& schedule) {
    if (LooksLikeCron(schedule)) {
        return schedule;
    }
    const Failure bad{
        FailureKind::kUserError,
        "schedule '" + schedule +
            "' is neither a cron schedule nor an ISO 8601 repeating interval "
            "(R[n]/[start]/<period>)"};
    const auto first = schedule.find('/');
    const auto second = first == std::string::npos ? std::string::npos : schedule.find('/', first + 1);
    if (schedule.empty() || schedule[0] != 'R' || second == std::string::npos) {
        return bad;
    }
    std::tm start{};
    if (!ParseStart(schedule.substr(first + 1, second - first - 1), start)) {
        return bad;
    }
    const long long period = PeriodSeconds(schedule.substr(second + 1));
    const std::string minute = std::to_string(start.tm_min);
    const std::string hour = std::to_string(start.tm_hour);
    if (period == -2) {
        return minute + " " + hour + " " + std::to_string(start.tm_mday == 0 ? 1 : start.tm_mday) + " * *";
    }
    if (period == 604800) {
        // tm_wday is not filled by get_time; derive it from the date.
        std::tm copy = start;
        const std::time_t t = timegm(&copy);
        std::tm day{};
        gmtime_r(&t, &day);
        return minute + " " + hour + " * * " +
               std::to_string(schedule.substr(first + 1, second - first - 1).empty() ? 0 : day.tm_wday);
    }
    if (period > 0 && period % 60 == 0 && period < 3600 && 3600 % period == 0) {
        const int step = static_cast<int>(period / 60);
        return Field(start.tm_min % step, step, 59) + " * * * *";
    }
    if (period > 0 && period % 3600 == 0 && period < 86400 && 86400 % period == 0) {
        const int step = static_cast<int>(period / 3600);
        return minute + " " + Field(start.tm_hour % step, step, 23) + " * * *";
    }
    if (period == 86400) {
        return minute + " " + hour + " * * *";
    }
    return Failure{
        FailureKind::kUserError,
        "schedule '" + schedule +
            "' has a period with no cron equivalent; use one that divides an hour "
            "or a day, a week (P1W) or a month (P1M)"};
}

}  // namespace orch::connectors
