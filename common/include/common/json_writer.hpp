#pragma once

#include "common/json.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace orch {

/// Writes JSON text straight into a string, for bodies built often enough that a nlohmann tree
/// (one allocation per member) costs more than the request's database work, like list pages.
/// Strings are escaped as AppendJsonString does, so the text is byte for byte what
/// Json::dump(-1, ' ', false, replace) gives for the same values in the same member order;
/// nlohmann orders members by key, and callers wanting its output write them in that order.
/// Commas are placed by the writer; the nesting itself is the caller's to balance.
class JsonWriter {
   public:
    explicit JsonWriter(std::string& out) : out_(out) {}

    JsonWriter& BeginObject();
    JsonWriter& EndObject();
    JsonWriter& BeginArray();
    JsonWriter& EndArray();
    /// A member name; the next call writes its value.
    JsonWriter& Key(std::string_view key);

    JsonWriter& String(std::string_view value);
    JsonWriter& Int(std::int64_t value);
    /// The shortest text that reads back as the same double, with ".0" when it would read as an
    /// integer (nlohmann may spell some differently, e.g. "0.0001" for "1e-04": the same value);
    /// NaN and infinities as null, as nlohmann writes them.
    JsonWriter& Double(double value);
    JsonWriter& Bool(bool value);
    JsonWriter& Null();
    /// A value held as a tree (user outputs, endpoints), dumped in place the same way.
    JsonWriter& Value(const Json& value);

    /// Key(key) then String(value).
    JsonWriter& Member(std::string_view key, std::string_view value) { return Key(key).String(value); }
    JsonWriter& Member(std::string_view key, std::int64_t value) { return Key(key).Int(value); }

   private:
    void BeforeValue();

    std::string& out_;
    // A value just ended, so the next value or key of the same container needs a comma; one
    // flag suffices because opening a container or writing a key clears it.
    bool need_comma_ = false;
};

}  // namespace orch
