// SlaCache: the bounded per-group SLA cache SLAM and the Federation Registry share.
#include <cmdb/sla_cache.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <utility>

namespace orch::cmdb {
namespace {

using Time = std::chrono::system_clock::time_point;

Time At(int hours) {
    return Time(std::chrono::hours(hours));
}

std::shared_ptr<const SlaSet> Slas(const std::string& id) {
    SlaSet set;
    set.slas.push_back(Sla{});
    set.slas.back().id = id;
    return std::make_shared<const SlaSet>(std::move(set));
}

TEST_CASE("SLA cache: remembers, replaces and forgets per key", "[cmdb][sla][cache]") {
    SlaCache<std::string> cache(4);
    CHECK(cache.Find("g") == nullptr);
    cache.Remember("g", {Slas("a"), At(1)});
    const auto* found = cache.Find("g");
    REQUIRE(found != nullptr);
    CHECK(found->slas->slas.at(0).id == "a");
    CHECK(found->fetched_at == At(1));
    cache.Remember("g", {Slas("b"), At(2)});
    CHECK(cache.size() == 1);
    CHECK(cache.Find("g")->slas->slas.at(0).id == "b");
    CHECK(cache.Find("g")->fetched_at == At(2));
    cache.Forget("g");
    CHECK(cache.Find("g") == nullptr);
    CHECK(cache.size() == 0);
    cache.Forget("never-there");
}

TEST_CASE("SLA cache: a new key past the bound pushes out the one read longest ago", "[cmdb][sla][cache]") {
    using Key = std::pair<std::string, std::string>;
    SlaCache<Key> cache(3);
    // Inserted out of age order, so the oldest is neither the first inserted nor the first by key.
    cache.Remember({"iss", "b"}, {Slas("b"), At(5)});
    cache.Remember({"iss", "c"}, {Slas("c"), At(2)});
    cache.Remember({"iss", "a"}, {Slas("a"), At(9)});
    // Refreshing a key already held evicts nothing, even at the bound.
    cache.Remember({"iss", "a"}, {Slas("a2"), At(10)});
    CHECK(cache.size() == 3);
    cache.Remember({"iss", "d"}, {Slas("d"), At(11)});
    CHECK(cache.size() == 3);
    CHECK(cache.Find({"iss", "c"}) == nullptr);
    CHECK(cache.Find({"iss", "a"}) != nullptr);
    CHECK(cache.Find({"iss", "b"}) != nullptr);
    CHECK(cache.Find({"iss", "d"}) != nullptr);
    cache.Remember({"other", "e"}, {Slas("e"), At(12)});
    CHECK(cache.Find({"iss", "b"}) == nullptr);
    CHECK(cache.size() == 3);
}

TEST_CASE("SLA cache: a bound of zero keeps nothing", "[cmdb][sla][cache]") {
    // The copies it replaced erased begin() of an empty map here (undefined behaviour).
    SlaCache<std::string> cache(0);
    cache.Remember("g", {Slas("a"), At(1)});
    CHECK(cache.size() == 0);
    CHECK(cache.Find("g") == nullptr);
}

TEST_CASE("SLA cache: many distinct groups stay within the bound", "[cmdb][sla][cache]") {
    SlaCache<std::string> cache(100);
    for (int i = 0; i < 10'000; ++i) {
        cache.Remember("group-" + std::to_string(i), {Slas("x"), At(i)});
        REQUIRE(cache.size() <= 100);
    }
    // The 100 kept are the 100 read last.
    CHECK(cache.Find("group-9999") != nullptr);
    CHECK(cache.Find("group-9900") != nullptr);
    CHECK(cache.Find("group-9899") == nullptr);
}

}  // namespace
}  // namespace orch::cmdb
