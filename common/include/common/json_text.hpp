#pragma once

#include <string>
#include <string_view>

namespace orch {

/// Appends `text` to `out` as a JSON string literal (with quotes), escaping as RFC 8259 requires.
/// Invalid UTF-8 bytes are replaced by U+FFFD so the output is always valid JSON.
void AppendJsonString(std::string& out, std::string_view text);

/// `text` as a JSON string literal.
std::string JsonQuote(std::string_view text);

}  // namespace orch
