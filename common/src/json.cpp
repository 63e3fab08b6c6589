#include "common/json.hpp"

#include <algorithm>
#include <charconv>

namespace orch {

namespace {

// "line L, column C" of the 1-based byte offset `byte` (the library's count), in one linear pass.
std::string Where(std::string_view text, std::size_t byte) {
    const std::size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

Result<Json> ParseJson(std::string_view text, int max_depth) {
    // The SAX callback sees every nesting step, so deep documents are refused before they are built.
    int depth = 0;
    bool too_deep = false;
    const Json::parser_callback_t limit = [&](int d, Json::parse_event_t event, Json&) {
        if (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) {
            depth = d;
            if (d >= max_depth) {
                too_deep = true;
            }
        }
        return !too_deep;
    };
    Json out = Json::parse(text.begin(), text.end(), limit, /*allow_exceptions=*/false);
    if (too_deep) {
        return Error::InvalidArgument("JSON nesting deeper than " + std::to_string(max_depth) + " levels");
    }
    if (out.is_discarded()) {
        // Re-run with exceptions only to obtain the position; this is the error path.
        // The message is ours: the library's text names its own exception ids and echoes input.
        try {
            [[maybe_unused]] const Json ignored = Json::parse(text.begin(), text.end());
        } catch (const Json::parse_error& e) {
            return Error::InvalidArgument(
                "malformed JSON at byte " + std::to_string(e.byte) + " (" + Where(text, e.byte) + ")"
            );
        } catch (const Json::exception&) {
            // e.g. out_of_range for a number like 1e99999 (found by tests/fuzz request_fuzz).
            return Error::InvalidArgument("malformed JSON: a number is out of range");
        }
        return Error::InvalidArgument("malformed JSON");
    }
    (void)depth;
    return out;
}

namespace {

// Java's String.trim(): every char up to and including U+0020 goes, at both ends.
std::string_view JavaTrim(std::string_view s) {
    while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') {
        s.remove_suffix(1);
    }
    return s;
}

// Integer.parseInt/Long.parseLong on ASCII digits: an optional sign, then digits only ("05" is 5,
// "+5" is 5; "1.5", "0x10", "1e3" are refused).
std::optional<std::int64_t> ParseJavaInt(std::string_view s) {
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
        if (!s.empty() && s.front() == '-') {
            return std::nullopt;
        }
    }
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        return std::nullopt;
    }
    return value;
}

constexpr double kIntMin = -2147483648.0;
constexpr double kIntMax = 2147483647.0;

}  // namespace

// Jackson 2.8's BooleanDeserializer (the original's keepLastAttempt is a primitive boolean).
Result<std::optional<bool>> ReadLenientBool(const Json& object, std::string_view field) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) {
        return std::optional<bool>();
    }
    if (it->is_boolean()) {
        return std::optional<bool>(it->get<bool>());
    }
    if (it->is_number_integer()) {  // 0 = false, anything else true; a float is refused
        return std::optional<bool>(
            it->is_number_unsigned() ? it->get<std::uint64_t>() != 0 : it->get<std::int64_t>() != 0
        );
    }
    if (it->is_string()) {
        const std::string_view s = JavaTrim(it->get_ref<const std::string&>());
        if (s == "true" || s == "True") {
            return std::optional<bool>(true);
        }
        if (s == "false" || s == "False") {
            return std::optional<bool>(false);
        }
        if (s.empty() || s == "null") {  // Jackson's empty and textual null: not given
            return std::optional<bool>();
        }
    }
    return Error::InvalidArgument("Field '" + std::string(field) + "' must be a boolean");
}

// Jackson 2.8's Integer deserializer with its defaults (ACCEPT_FLOAT_AS_INT on).
Result<std::optional<std::int64_t>> ReadLenientInt(const Json& object, std::string_view field) {
    const Error bad = Error::InvalidArgument("Field '" + std::string(field) + "' must be an integer");
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) {
        return std::optional<std::int64_t>();
    }
    std::optional<std::int64_t> value;
    if (it->is_number_integer()) {
        if (it->is_number_unsigned() ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kIntMax)
                                     : it->get<std::int64_t>() >= static_cast<std::int64_t>(kIntMin)) {
            value = it->is_number_unsigned() ? static_cast<std::int64_t>(it->get<std::uint64_t>())
                                             : it->get<std::int64_t>();
        }
    } else if (it->is_number_float()) {
        const double d = it->get<double>();
        if (d >= kIntMin && d <= kIntMax) {  // truncated toward zero: 1.9 is 1, -0.5 is 0
            value = static_cast<std::int64_t>(d);
        }
    } else if (it->is_string()) {
        const std::string_view s = JavaTrim(it->get_ref<const std::string&>());
        if (s.empty() || s == "null") {  // "" (the dashboard's cleared box) and "null": not given
            return std::optional<std::int64_t>();
        }
        value = ParseJavaInt(s);
    }
    if (!value || *value < static_cast<std::int64_t>(kIntMin) || *value > static_cast<std::int64_t>(kIntMax)) {
        return bad;  // another kind, not a number, or outside Java's int (Jackson's overflow)
    }
    return value;
}

Result<std::optional<std::string>> ReadString(const Json& object, std::string_view field) {
    const auto it = object.find(field);
    if (it == object.end() || it->is_null()) {
        return std::optional<std::string>();
    }
    if (!it->is_string()) {
        return Error::InvalidArgument("Field '" + std::string(field) + "' must be a string");
    }
    return std::optional<std::string>(it->get<std::string>());
}

}  // namespace orch
