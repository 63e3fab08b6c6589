#include "orchestrator/domain/iso_time.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace orch::domain {
namespace {

// A cursor over the text: each read consumes exactly what it accepts.
class Cursor {
   public:
    explicit Cursor(std::string_view text) : text_(text) {}

    // Exactly `n` digits.
    std::optional<int> Digits(std::size_t n) {
        if (pos_ + n > text_.size()) {
            return std::nullopt;
        }
        int value = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const char c = text_[pos_ + i];
            if (c < '0' || c > '9') {
                return std::nullopt;
            }
            value = value * 10 + (c - '0');
        }
        pos_ += n;
        return value;
    }
    bool Take(char c) {
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void SkipDigits() {
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
            ++pos_;
        }
    }
    bool AtEnd() const { return pos_ == text_.size(); }

   private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

int DaysInMonth(int year, int month) {
    constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[static_cast<std::size_t>(month - 1)];
}

// The UTC offset in seconds after the time: Z, +HH:MM, +HHMM (or -).
std::optional<int> Offset(Cursor& c) {
    if (c.Take('Z') || c.Take('z')) {
        return 0;
    }
    int sign = 0;
    if (c.Take('+')) {
        sign = 1;
    } else if (c.Take('-')) {
        sign = -1;
    } else {
        return std::nullopt;
    }
    const auto hours = c.Digits(2);
    c.Take(':');
    const auto minutes = c.Digits(2);
    if (!hours || !minutes || *hours > 23 || *minutes > 59) {
        return std::nullopt;
    }
    return sign * (*hours * 3600 + *minutes * 60);
}

}  // namespace

std::string FormatIsoTime(TimePoint t) {
    const auto days = std::chrono::floor<std::chrono::days>(t);
    const std::chrono::year_month_day ymd(days);
    const std::chrono::hh_mm_ss hms(std::chrono::floor<std::chrono::seconds>(t - days));
    std::array<char, 32> buffer{};
    const int n = std::snprintf(
        buffer.data(),
        buffer.size(),
        "%04d-%02u-%02uT%02d:%02d:%02dZ",
        static_cast<int>(ymd.year()),
        static_cast<unsigned>(ymd.month()),
        static_cast<unsigned>(ymd.day()),
        static_cast<int>(hms.hours().count()),
        static_cast<int>(hms.minutes().count()),
        static_cast<int>(hms.seconds().count())
    );
    return std::string(buffer.data(), static_cast<std::size_t>(std::max(n, 0)));
}

std::optional<TimePoint> ParseIsoTime(std::string_view text) {
    if (text.size() > 64) {
        return std::nullopt;
    }
    Cursor c(text);
    const auto year = c.Digits(4);
    const bool dash1 = c.Take('-');
    const auto month = c.Digits(2);
    const bool dash2 = c.Take('-');
    const auto day = c.Digits(2);
    const bool t = c.Take('T') || c.Take('t');
    const auto hour = c.Digits(2);
    const bool colon = c.Take(':');
    const auto minute = c.Digits(2);
    if (!year || !dash1 || !month || !dash2 || !day || !t || !hour || !colon || !minute) {
        return std::nullopt;
    }
    int second = 0;
    if (c.Take(':')) {
        const auto s = c.Digits(2);
        if (!s) {
            return std::nullopt;
        }
        second = *s;
        if (c.Take('.')) {
            if (!c.Digits(1)) {
                return std::nullopt;
            }
            c.SkipDigits();
        }
    }
    const auto offset = Offset(c);
    if (!offset || !c.AtEnd() || *year < 1970 || *month < 1 || *month > 12 || *day < 1 ||
        *day > DaysInMonth(*year, *month) || *hour > 23 || *minute > 59 || second > 59) {
        return std::nullopt;
    }
    const std::chrono::year_month_day ymd{
        std::chrono::year(*year),
        std::chrono::month(static_cast<unsigned>(*month)),
        std::chrono::day(static_cast<unsigned>(*day))};
    const auto local = std::chrono::sys_days(ymd) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
                       std::chrono::seconds(second);
    return TimePoint(
        std::chrono::duration_cast<TimePoint::duration>((local - std::chrono::seconds(*offset)).time_since_epoch())
    );
}

}  // namespace orch::domain
