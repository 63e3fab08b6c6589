#include <common/json.hpp>
#include <common/json_text.hpp>
#include <common/json_writer.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace {

// The reference: what every response body was before the writer (nlohmann, replace mode).
std::string NlohmannDump(const orch::Json& value) {
    return value.dump(-1, ' ', false, orch::Json::error_handler_t::replace);
}

std::string Quoted(std::string_view text) {
    return orch::JsonQuote(text);
}

// Bytes at the edges of every class the escaper and the UTF-8 check distinguish.
constexpr std::array<unsigned char, 30> kEdgeBytes = {0x00, 0x08, 0x0A, 0x1F, 0x20, 0x22, 0x41, 0x5C, 0x7E, 0x7F,
                                                      0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                                      0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5};

}  // namespace

TEST_CASE("JsonQuote matches nlohmann's replace mode on tricky strings", "[common][json]") {
    const std::vector<std::string> samples = {
        "",
        "plain",
        "quote \" backslash \\ slash /",
        std::string("nul \0 inside", 12),
        "\b\f\n\r\t\x01\x1f\x7f",
        "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",  // 2-, 3- and 4-byte sequences
        "truncated \xE2\x82",                         // one U+FFFD for the whole broken prefix
        "broken \xE2\x82"
        "A then text",   // ... and the breaking byte kept
        "\xF0\x9F\x98",  // truncated at the very end
        "\xC0\xAF overlong slash",
        "\xED\xA0\x80 surrogate",
        "\xF4\x90\x80\x80 past U+10FFFF",
        "\xFF\xFE lone bytes",
        "\xE2\xC3\xA9 a broken prefix followed by a valid sequence",
    };
    for (const auto& s : samples) {
        INFO("input bytes: " << s.size());
        CHECK(Quoted(s) == NlohmannDump(orch::Json(s)));
    }
}

TEST_CASE("JsonQuote matches nlohmann on every 1- to 4-byte string of edge bytes", "[common][json]") {
    // Exhaustive over the edge bytes: 30^4 strings, about a second; any disagreement in how an
    // ill-formed sequence is cut into replacements shows up here.
    std::size_t mismatches = 0;
    std::string first_mismatch;
    std::string s;
    const auto check = [&] {
        if (Quoted(s) != NlohmannDump(orch::Json(s))) {
            if (mismatches++ == 0) {
                first_mismatch = s;
            }
        }
    };
    for (const auto a : kEdgeBytes) {
        s.assign(1, static_cast<char>(a));
        check();
        for (const auto b : kEdgeBytes) {
            s.assign({static_cast<char>(a), static_cast<char>(b)});
            check();
            for (const auto c : kEdgeBytes) {
                s.assign({static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)});
                check();
                for (const auto d : kEdgeBytes) {
                    s.assign({static_cast<char>(a), static_cast<char>(b), static_cast<char>(c), static_cast<char>(d)});
                    check();
                }
            }
        }
    }
    INFO("first mismatch has " << first_mismatch.size() << " bytes");
    CHECK(mismatches == 0);
}

TEST_CASE("JsonWriter writes what nlohmann dumps for the same tree", "[common][json]") {
    std::string out;
    orch::JsonWriter w(out);
    const orch::Json nested = {{"b", {1, 2.5, nullptr, true}}, {"a", "x\xFFy"}};
    w.BeginObject()
        .Key("content")
        .BeginArray()
        .BeginObject()
        .Member("id", "a\"b")
        .Member("n", std::int64_t{-42})
        .EndObject()
        .BeginObject()
        .EndObject()
        .BeginArray()
        .EndArray()
        .String("\x01")
        .Int(9223372036854775807)
        .EndArray()
        .Key("empty")
        .BeginObject()
        .EndObject()
        .Key("tree")
        .Value(nested)
        .EndObject();
    const orch::Json expected = {
        {"content",
         {{{"id", "a\"b"}, {"n", -42}}, orch::Json::object(), orch::Json::array(), "\x01", 9223372036854775807}},
        {"empty", orch::Json::object()},
        {"tree", nested}};
    CHECK(out == NlohmannDump(expected));
}

TEST_CASE("JsonWriter doubles read back as the same value, booleans and null too", "[common][json]") {
    const double values[] = {0.0, -0.0, 1.0, 0.72, 1.0 / 3.0, 123456789.125, 1e-7, 6.02214076e23, -2.5e-308};
    for (const double value : values) {
        std::string out;
        orch::JsonWriter(out).Double(value);
        INFO(out);
        CHECK(orch::Json::parse(out).get<double>() == value);
        CHECK(orch::Json::parse(out).is_number_float());
    }
    std::string out;
    orch::JsonWriter w(out);
    w.BeginArray().Double(std::nan("")).Double(HUGE_VAL).Bool(true).Bool(false).Null().EndArray();
    CHECK(out == "[null,null,true,false,null]");
    CHECK(out == NlohmannDump(orch::Json::parse(out)));
}
