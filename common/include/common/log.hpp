#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace orch::log {

enum class Level { kTrace, kDebug, kInfo, kWarn, kError };

/// Parses "trace|debug|info|warn|error"; false when the text is none of them.
bool ParseLevel(std::string_view text, Level& out);
std::string_view LevelName(Level level);

/// One key/value of a log line. Values are rendered as JSON (strings quoted and escaped).
class Field {
   public:
    Field(std::string_view key, std::string_view value);
    Field(std::string_view key, const char* value);
    Field(std::string_view key, const std::string& value);
    Field(std::string_view key, std::int64_t value);
    Field(std::string_view key, int value);
    Field(std::string_view key, std::uint64_t value);
    Field(std::string_view key, double value);
    Field(std::string_view key, bool value);

    std::string_view key() const { return key_; }
    const std::string& json_value() const { return json_value_; }

   private:
    std::string_view key_;
    std::string json_value_;
};

void SetLevel(Level level);
bool Enabled(Level level);

/// Replaces the output (stderr by default); tests capture lines with it. Not for use while logging.
void SetSink(std::function<void(std::string_view line)> sink);
void ResetSink();

/// Writes one JSON line: {"time","level","msg", "request_id"?, "deployment_id"?, fields...}.
void Write(Level level, std::string_view message, std::initializer_list<Field> fields = {});

/// Per-thread context stamped on every line written by this thread while the scope lives
/// (the request id on an API worker, the deployment id in a workflow step).
class ScopedContext {
   public:
    ScopedContext(std::string request_id, std::string deployment_id);
    ~ScopedContext();
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;

   private:
    std::string saved_request_id_;
    std::string saved_deployment_id_;
};

std::string CurrentRequestId();

}  // namespace orch::log

// Arguments are evaluated only when the level is enabled.
#define ORCH_LOG(level, ...)                        \
    do {                                            \
        if (::orch::log::Enabled(level)) {          \
            ::orch::log::Write(level, __VA_ARGS__); \
        }                                           \
    } while (false)
#define ORCH_LOG_DEBUG(...) ORCH_LOG(::orch::log::Level::kDebug, __VA_ARGS__)
#define ORCH_LOG_INFO(...) ORCH_LOG(::orch::log::Level::kInfo, __VA_ARGS__)
#define ORCH_LOG_WARN(...) ORCH_LOG(::orch::log::Level::kWarn, __VA_ARGS__)
#define ORCH_LOG_ERROR(...) ORCH_LOG(::orch::log::Level::kError, __VA_ARGS__)
