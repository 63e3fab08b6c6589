#include <common/json.hpp>
#include <common/json_text.hpp>

#include <catch2/catch.hpp>

TEST_CASE("lenient booleans and integers follow the original's coercions", "[common][json]") {
    const auto body = orch::Json::parse(R"({"a":"true","b":"False","c":0,"d":true,"e":"720","f":12,"g":"x","h":null})");
    CHECK(*orch::ReadLenientBool(body, "a") == true);
    CHECK(*orch::ReadLenientBool(body, "b") == false);
    CHECK(*orch::ReadLenientBool(body, "c") == false);
    CHECK(*orch::ReadLenientBool(body, "d") == true);
    CHECK_FALSE(orch::ReadLenientBool(body, "h")->has_value());
    CHECK_FALSE(orch::ReadLenientBool(body, "missing")->has_value());
    CHECK_FALSE(orch::ReadLenientBool(body, "g"));
    CHECK(*orch::ReadLenientInt(body, "e") == 720);
    CHECK(*orch::ReadLenientInt(body, "f") == 12);
    CHECK_FALSE(orch::ReadLenientInt(body, "g"));
}

TEST_CASE("lenient readers: Jackson's empty strings, truncation, trimming and refusals", "[common][json]") {
    const auto body = orch::Json::parse(R"({"empty":"","textnull":"null","pad":" 05\t","plus":"+5","neg":"-3",
        "trunc":1.9,"ntrunc":-1.9,"big":3e9,"bigtext":"2147483648","dec":"1.5","hex":"0x10","flag":true,
        "arr":[1],"T":" True ","upper":"TRUE","float":1.5,"one":1,"zero":0})");
    CHECK_FALSE(orch::ReadLenientInt(body, "empty")->has_value());
    CHECK_FALSE(orch::ReadLenientInt(body, "textnull")->has_value());
    CHECK(*orch::ReadLenientInt(body, "pad") == 5);
    CHECK(*orch::ReadLenientInt(body, "plus") == 5);
    CHECK(*orch::ReadLenientInt(body, "neg") == -3);
    CHECK(*orch::ReadLenientInt(body, "trunc") == 1);
    CHECK(*orch::ReadLenientInt(body, "ntrunc") == -1);
    for (const char* refused : {"big", "bigtext", "dec", "hex", "flag", "arr"}) {
        INFO(refused);
        CHECK_FALSE(orch::ReadLenientInt(body, refused));
    }
    CHECK_FALSE(orch::ReadLenientBool(body, "empty")->has_value());
    CHECK_FALSE(orch::ReadLenientBool(body, "textnull")->has_value());
    CHECK(*orch::ReadLenientBool(body, "T") == true);
    CHECK(*orch::ReadLenientBool(body, "one") == true);
    CHECK(*orch::ReadLenientBool(body, "zero") == false);
    for (const char* refused : {"upper", "float", "pad", "arr"}) {
        INFO(refused);
        CHECK_FALSE(orch::ReadLenientBool(body, refused));
    }
}

TEST_CASE("ParseJson reports where the text breaks and refuses deep nesting", "[common][json]") {
    auto bad = orch::ParseJson("{\"a\": [1, 2,}");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("malformed JSON at byte") == 0);
    // Our words only: the library's exception ids and its echo of the input stay out of messages.
    auto second_line = orch::ParseJson("{\"a\": 1,\n  \"b\": tru}");
    REQUIRE_FALSE(second_line);
    CHECK(second_line.error().message.find("(line 2, column") != std::string::npos);
    CHECK(second_line.error().message.find("json.exception") == std::string::npos);
    CHECK(second_line.error().message.find("last read") == std::string::npos);
    auto huge = orch::ParseJson("[1e99999]");
    REQUIRE_FALSE(huge);
    CHECK(huge.error().message == "malformed JSON: a number is out of range");
    std::string deep(200, '[');
    deep += std::string(200, ']');
    auto too_deep = orch::ParseJson(deep, 64);
    REQUIRE_FALSE(too_deep);
    CHECK(too_deep.error().message.find("deeper than 64") != std::string::npos);
    CHECK(orch::ParseJson("{\"k\": [1, {\"x\": null}]}").has_value());
}

TEST_CASE("JSON quoting escapes control characters and repairs invalid UTF-8", "[common][json]") {
    CHECK(orch::JsonQuote("a\"b\\c\n\x01") == "\"a\\\"b\\\\c\\n\\u0001\"");
    CHECK(orch::JsonQuote("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
    CHECK(orch::JsonQuote("bad\xFF") == "\"bad\xEF\xBF\xBD\"");
    CHECK(orch::Json::parse(orch::JsonQuote("x\xC0\xAFy")).is_string());
}
