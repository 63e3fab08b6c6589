#include "connectors/context_progress.hpp"

#include <algorithm>

namespace orch::connectors {
namespace {

constexpr std::string_view kTask = "TASK [";
constexpr std::string_view kHandler = "RUNNING HANDLER [";
constexpr std::string_view kRoleSeparator = " : ";

// The length of the UTF-8 sequence starting at `text[at]`, 0 when it is not a whole, valid one
// (overlong forms and surrogates are accepted: the text is only shown, never interpreted).
std::size_t Utf8Length(std::string_view text, std::size_t at) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 0;
    if (lead >= 0xC2U && lead <= 0xDFU) {
        length = 2;
    } else if (lead >= 0xE0U && lead <= 0xEFU) {
        length = 3;
    } else if (lead >= 0xF0U && lead <= 0xF4U) {
        length = 4;
    } else {
        return 0;
    }
    if (at + length > text.size()) {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        if ((static_cast<unsigned char>(text[at + i]) & 0xC0U) != 0x80U) {
            return 0;
        }
    }
    return length;
}

// At most kMaxProgressName bytes of `name`, whole UTF-8 sequences only, everything else '?'.
std::string CleanName(std::string_view name) {
    std::string out;
    out.reserve(std::min(name.size(), kMaxProgressName));
    std::size_t at = 0;
    while (at < name.size()) {
        const auto c = static_cast<unsigned char>(name[at]);
        std::size_t take = 1;
        if (c >= 0x80U) {
            take = Utf8Length(name, at);
        }
        const bool printable = c >= 0x80U ? take > 0 : (c >= 0x20U && c != 0x7FU);
        const std::size_t size = printable ? take : 1;
        if (out.size() + size > kMaxProgressName) {
            break;
        }
        if (printable) {
            out.append(name.substr(at, take));
        } else {
            out += '?';
        }
        at += size;
    }
    return out;
}

// A role name as ansible-galaxy names them: no spaces, not empty. Anything else before " : " is
// part of a task's own name.
bool LooksLikeRole(std::string_view text) {
    return !text.empty() && text.find(' ') == std::string_view::npos;
}

}  // namespace

std::optional<ContextProgress> ParseAnsibleTaskHeader(std::string_view line) {
    std::string_view inner;
    if (line.starts_with(kTask)) {
        inner = line.substr(kTask.size());
    } else if (line.starts_with(kHandler)) {
        inner = line.substr(kHandler.size());
    } else {
        return std::nullopt;
    }
    // The banner ends "] ****" (stars to the terminal width, at least three).
    const std::size_t stars = inner.find_last_not_of('*');
    if (stars == std::string_view::npos || stars + 1 == inner.size()) {
        return std::nullopt;
    }
    inner = inner.substr(0, stars + 1);
    const std::size_t end = inner.find_last_not_of(' ');
    if (end == std::string_view::npos || inner[end] != ']') {
        return std::nullopt;
    }
    inner = inner.substr(0, end);
    ContextProgress progress;
    const std::size_t separator = inner.find(kRoleSeparator);
    if (separator != std::string_view::npos && LooksLikeRole(inner.substr(0, separator))) {
        progress.role = CleanName(inner.substr(0, separator));
        inner.remove_prefix(separator + kRoleSeparator.size());
    }
    progress.task = CleanName(inner);
    if (progress.task.empty()) {
        return std::nullopt;
    }
    return progress;
}

std::string ProgressMessage(const ContextProgress& progress) {
    std::string message = "configuring node " + progress.node;
    if (progress.task.empty()) {
        return message;
    }
    message += " (";
    if (!progress.role.empty()) {
        message += "role " + progress.role + ", ";
    }
    return message + "task '" + progress.task + "')";
}

}  // namespace orch::connectors
