#include "common/trace_context.hpp"

#include "common/uuid.hpp"

#include <algorithm>
#include <utility>

namespace orch::trace {
namespace {

thread_local std::string t_trace_id;
thread_local bool t_sampled = false;

constexpr std::size_t kVersion00Size = 55;  // 2 + 1 + 32 + 1 + 16 + 1 + 2

bool IsLowerHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool AllLowerHex(std::string_view text) {
    return std::all_of(text.begin(), text.end(), IsLowerHex);
}

bool AllZero(std::string_view text) {
    return text.find_first_not_of('0') == std::string_view::npos;
}

int HexValue(char c) {
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

// Random hex from UniqueUuid (a per-thread generator, not for secrets: trace ids are not).
std::string RandomHex(std::size_t digits) {
    std::string hex;
    while (hex.size() < digits) {
        for (const char c : UniqueUuid()) {
            if (c != '-') {
                hex += c;
            }
        }
    }
    hex.resize(digits);
    if (AllZero(hex)) {
        hex.back() = '1';  // the specification forbids an all-zero id
    }
    return hex;
}

}  // namespace

std::optional<TraceParent> ParseTraceparent(std::string_view header) {
    if (header.size() < kVersion00Size) {
        return std::nullopt;
    }
    const std::string_view version = header.substr(0, 2);
    if (!AllLowerHex(version) || version == "ff") {
        return std::nullopt;
    }
    // Version 00 is exactly 55 characters; a later version may append fields after a '-'.
    if (version == "00" ? header.size() != kVersion00Size
                        : header.size() > kVersion00Size && header[kVersion00Size] != '-') {
        return std::nullopt;
    }
    if (header[2] != '-' || header[35] != '-' || header[52] != '-') {
        return std::nullopt;
    }
    const std::string_view trace_id = header.substr(3, 32);
    const std::string_view parent_id = header.substr(36, 16);
    const std::string_view flags = header.substr(53, 2);
    if (!AllLowerHex(trace_id) || !AllLowerHex(parent_id) || !AllLowerHex(flags) || AllZero(trace_id) ||
        AllZero(parent_id)) {
        return std::nullopt;
    }
    return TraceParent{std::string(trace_id), std::string(parent_id), (HexValue(flags[1]) & 1) != 0};
}

std::string NewTraceId() {
    return RandomHex(32);
}

std::string NewSpanId() {
    return RandomHex(16);
}

std::string FormatTraceparent(std::string_view trace_id, std::string_view span_id, bool sampled) {
    std::string out = "00-";
    out += trace_id;
    out += '-';
    out += span_id;
    out += sampled ? "-01" : "-00";
    return out;
}

ScopedTrace::ScopedTrace(std::string trace_id, bool sampled)
    : saved_trace_id_(std::exchange(t_trace_id, std::move(trace_id))),
      saved_sampled_(std::exchange(t_sampled, sampled)) {}

ScopedTrace::~ScopedTrace() {
    t_trace_id = std::move(saved_trace_id_);
    t_sampled = saved_sampled_;
}

const std::string& CurrentTraceId() {
    return t_trace_id;
}

bool CurrentTraceSampled() {
    return t_sampled;
}

std::string OutboundTraceparent() {
    return t_trace_id.empty() ? std::string() : FormatTraceparent(t_trace_id, NewSpanId(), t_sampled);
}

}  // namespace orch::trace
