#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <set>

TEST_CASE("sequential UUIDs sort by creation time and are unique", "[common][uuid]") {
    std::string prev;
    std::set<std::string> seen;
    for (int i = 0; i < 2000; ++i) {
        const std::string id = orch::SequentialUuid();
        REQUIRE(orch::LooksLikeUuid(id));
        REQUIRE(id > prev);
        REQUIRE(seen.insert(id).second);
        prev = id;
    }
}

TEST_CASE("random UUIDs are version 4", "[common][uuid]") {
    const std::string id = orch::RandomUuid();
    CHECK(orch::LooksLikeUuid(id));
    CHECK(id[14] == '4');
    CHECK_FALSE(orch::LooksLikeUuid("not-a-uuid"));
}

TEST_CASE("unique UUIDs are version 4 and do not repeat", "[common][uuid]") {
    std::set<std::string> seen;
    for (int i = 0; i < 10000; ++i) {
        const std::string id = orch::UniqueUuid();
        REQUIRE(orch::LooksLikeUuid(id));
        REQUIRE(id[14] == '4');
        REQUIRE((id[19] == '8' || id[19] == '9' || id[19] == 'a' || id[19] == 'b'));
        REQUIRE(seen.insert(id).second);
    }
}
