#pragma once

#include <string>
#include <string_view>

namespace orch {

/// Appends `text` to `out` as a JSON string literal (with quotes), escaping as RFC 8259 requires.
/// The bytes are exactly those of nlohmann's dump(-1, ' ', false, error_handler_t::replace):
/// UTF-8 passes through, control characters become \b \f \n \r \t or \u00xx, and each maximal
/// invalid UTF-8 subpart becomes one U+FFFD, so the output is always valid JSON.
void AppendJsonString(std::string& out, std::string_view text);

/// `text` as a JSON string literal.
std::string JsonQuote(std::string_view text);

}  // namespace orch
