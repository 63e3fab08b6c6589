#include "orchestrator/domain/deployment.hpp"

#include <array>
#include <charconv>
#include <chrono>

namespace orch::domain {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 10> kStatusNames = {{
    {Status::kCreateInProgress, "CREATE_IN_PROGRESS"},
    {Status::kCreateComplete, "CREATE_COMPLETE"},
    {Status::kCreateFailed, "CREATE_FAILED"},
    {Status::kUpdateInProgress, "UPDATE_IN_PROGRESS"},
    {Status::kUpdateComplete, "UPDATE_COMPLETE"},
    {Status::kUpdateFailed, "UPDATE_FAILED"},
    {Status::kDeleteInProgress, "DELETE_IN_PROGRESS"},
    {Status::kDeleteComplete, "DELETE_COMPLETE"},
    {Status::kDeleteFailed, "DELETE_FAILED"},
    {Status::kUnknown, "UNKNOWN"},
}};

}  // namespace

std::string_view StatusName(Status status) {
    for (const auto& [s, name] : kStatusNames) {
        if (s == status) {
            return name;
        }
    }
    return "UNKNOWN";
}

std::optional<Status> ParseStatus(std::string_view name) {
    for (const auto& [s, n] : kStatusNames) {
        if (n == name) {
            return s;
        }
    }
    return std::nullopt;
}

std::string_view TaskName(Task task) {
    return task == Task::kDeployer ? "DEPLOYER" : "NONE";
}

bool IsTerminal(Status status) {
    return status == Status::kCreateComplete || status == Status::kCreateFailed || status == Status::kUpdateComplete ||
           status == Status::kUpdateFailed || status == Status::kDeleteComplete || status == Status::kDeleteFailed;
}

ContractTimeText ContractTime(TimePoint t) {
    // Calendar arithmetic instead of gmtime_r + snprintf: this runs twice per row of every
    // list page, and printf's format parsing showed in the list profile.
    using namespace std::chrono;  // NOLINT(google-build-using-namespace): calendar names, this function only
    const auto day = floor<days>(t);
    const year_month_day date{day};
    const hh_mm_ss time{floor<minutes>(t - day)};
    ContractTimeText text;
    char* const begin = text.chars.data();
    char* p = begin;
    const auto put = [&p](long value, int width) {
        for (int i = width - 1; i >= 0; --i) {
            p[i] = static_cast<char>('0' + value % 10);
            value /= 10;
        }
        p += width;
    };
    const int y = static_cast<int>(date.year());
    if (y >= 0 && y <= 9999) {
        put(y, 4);
    } else {
        p = std::to_chars(p, begin + 12, y).ptr;
    }
    *p++ = '-';
    put(static_cast<long>(static_cast<unsigned>(date.month())), 2);
    *p++ = '-';
    put(static_cast<long>(static_cast<unsigned>(date.day())), 2);
    *p++ = 'T';
    put(time.hours().count(), 2);
    *p++ = ':';
    put(time.minutes().count(), 2);
    for (const char c : std::string_view("+0000")) {
        *p++ = c;
    }
    text.size = static_cast<std::size_t>(p - begin);
    return text;
}

std::string FormatContractTime(TimePoint t) {
    return std::string(ContractTime(t).view());
}

}  // namespace orch::domain

namespace orch::domain {

std::string_view LeaseActionName(LeaseAction action) {
    return action == LeaseAction::kStop ? "stop" : "delete";
}

std::optional<LeaseAction> ParseLeaseAction(std::string_view name) {
    if (name == "delete") {
        return LeaseAction::kDelete;
    }
    if (name == "stop") {
        return LeaseAction::kStop;
    }
    return std::nullopt;
}

}  // namespace orch::domain
