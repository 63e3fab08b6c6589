#include "common/log.hpp"

#include "common/json_text.hpp"
#include "common/trace_context.hpp"

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <utility>

namespace orch::log {
namespace {

// Logging is process-wide by nature; these are the only mutable globals of the module.
std::atomic<int> g_level{static_cast<int>(Level::kInfo)};  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
std::mutex g_sink_mutex;                                   // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
std::function<void(std::string_view)> g_sink;              // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
thread_local std::string t_request_id;                     // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
thread_local std::string t_deployment_id;                  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

std::string NowUtc() {
    const auto now = std::chrono::system_clock::now();
    const auto secs = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];  // sized for the widest int values so the compiler can prove no truncation
    std::snprintf(
        buf,
        sizeof buf,
        "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        static_cast<int>(millis)
    );
    return buf;
}

void AppendField(std::string& line, std::string_view key, std::string_view json_value) {
    line.push_back(',');
    AppendJsonString(line, key);
    line.push_back(':');
    line.append(json_value);
}

}  // namespace

bool ParseLevel(std::string_view text, Level& out) {
    static constexpr std::pair<std::string_view, Level> kNames[] = {
        {"trace", Level::kTrace},
        {"debug", Level::kDebug},
        {"info", Level::kInfo},
        {"warn", Level::kWarn},
        {"warning", Level::kWarn},
        {"error", Level::kError}};
    for (const auto& [name, level] : kNames) {
        if (name == text) {
            out = level;
            return true;
        }
    }
    return false;
}

std::string_view LevelName(Level level) {
    switch (level) {
        case Level::kTrace:
            return "trace";
        case Level::kDebug:
            return "debug";
        case Level::kInfo:
            return "info";
        case Level::kWarn:
            return "warn";
        case Level::kError:
            return "error";
    }
    return "info";
}

Field::Field(std::string_view key, std::string_view value) : key_(key), json_value_(JsonQuote(value)) {}
Field::Field(std::string_view key, const char* value) : Field(key, std::string_view(value)) {}
Field::Field(std::string_view key, const std::string& value) : Field(key, std::string_view(value)) {}
Field::Field(std::string_view key, std::int64_t value) : key_(key), json_value_(std::to_string(value)) {}
Field::Field(std::string_view key, int value) : key_(key), json_value_(std::to_string(value)) {}
Field::Field(std::string_view key, std::uint64_t value) : key_(key), json_value_(std::to_string(value)) {}
Field::Field(std::string_view key, double value) : key_(key) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    json_value_ = buf;
}
Field::Field(std::string_view key, bool value) : key_(key), json_value_(value ? "true" : "false") {}

void SetLevel(Level level) {
    g_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

bool Enabled(Level level) {
    return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

void SetSink(std::function<void(std::string_view)> sink) {
    const std::lock_guard lock(g_sink_mutex);
    g_sink = std::move(sink);
}

void ResetSink() {
    SetSink(nullptr);
}

void Write(Level level, std::string_view message, std::initializer_list<Field> fields) {
    std::string line;
    line.reserve(128 + message.size());
    line += "{\"time\":\"";
    line += NowUtc();
    line += "\",\"level\":\"";
    line += LevelName(level);
    line += "\",\"msg\":";
    AppendJsonString(line, message);
    if (!t_request_id.empty()) {
        AppendField(line, "request_id", JsonQuote(t_request_id));
    }
    if (!t_deployment_id.empty()) {
        AppendField(line, "deployment_id", JsonQuote(t_deployment_id));
    }
    if (const std::string& trace_id = trace::CurrentTraceId(); !trace_id.empty()) {
        AppendField(line, "trace_id", JsonQuote(trace_id));
    }
    for (const auto& field : fields) {
        AppendField(line, field.key(), field.json_value());
    }
    line += "}\n";
    const std::lock_guard lock(g_sink_mutex);
    if (g_sink) {
        g_sink(line);
    } else {
        std::fwrite(line.data(), 1, line.size(), stderr);
    }
}

ScopedContext::ScopedContext(std::string request_id, std::string deployment_id)
    : saved_request_id_(std::exchange(t_request_id, std::move(request_id))),
      saved_deployment_id_(std::exchange(t_deployment_id, std::move(deployment_id))) {}

ScopedContext::~ScopedContext() {
    t_request_id = std::move(saved_request_id_);
    t_deployment_id = std::move(saved_deployment_id_);
}

std::string CurrentRequestId() {
    return t_request_id;
}

}  // namespace orch::log
