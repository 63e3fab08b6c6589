// Verdicts own their texts: a verdict (or its reasons) copied out of its decision stays readable
// after the decision, the placer and the catalogue it was made from are gone.
#include "fixture_world.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace orch::test {
namespace {

struct Words {
    std::string provider_id, provider_name, service_id, service_type;
    std::vector<std::string> reasons;
};

Words WordsOf(const placement::SiteVerdict& verdict) {
    return {
        std::string(verdict.provider_id),
        std::string(verdict.provider_name),
        std::string(verdict.service_id),
        std::string(verdict.service_type),
        verdict.reasons.Texts()};
}

// Fills freed memory with other text, so that a text still pointing there reads it.
std::size_t Scribble() {
    std::vector<std::string> filler;
    for (int i = 0; i < 20'000; ++i) {
        filler.emplace_back(40 + i % 200, '#');
    }
    return filler.size();
}

TEST_CASE(
    "a verdict copied out of its decision keeps its texts once the decision and catalogue are gone", "[placement]"
) {
    std::vector<placement::SiteVerdict> copies;
    std::vector<placement::Reasons> reasons;
    std::vector<Words> expected;
    {
        FixtureWorld world;
        for (const int gpus : {1, 8}) {  // 1: accepted sites with their VM notes; 8: flavor misses
            const auto decision = world.Place(GpuVmSpec(gpus));
            for (const auto& verdict : decision.verdicts) {
                copies.push_back(verdict);
                reasons.push_back(verdict.reasons);
                expected.push_back(WordsOf(verdict));
            }
        }
    }
    CHECK(Scribble() > 0);
    REQUIRE(copies.size() == expected.size());
    bool vm_note = false;
    bool flavor_miss = false;
    for (std::size_t i = 0; i < copies.size(); ++i) {
        const Words now = WordsOf(copies[i]);
        INFO(expected[i].service_id);
        CHECK(now.provider_id == expected[i].provider_id);
        CHECK(now.provider_name == expected[i].provider_name);
        CHECK(now.service_id == expected[i].service_id);
        CHECK(now.service_type == expected[i].service_type);
        CHECK(now.reasons == expected[i].reasons);
        CHECK(reasons[i].Texts() == expected[i].reasons);
        for (const auto& text : expected[i].reasons) {
            vm_note = vm_note || text.find("': flavor ") != std::string::npos;
            flavor_miss = flavor_miss || text.find("no flavor has 8 GPUs") != std::string::npos;
        }
    }
    // The texts made lazily from the catalogue were among those checked.
    CHECK(vm_note);
    CHECK(flavor_miss);
}

}  // namespace
}  // namespace orch::test
