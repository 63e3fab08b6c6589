// The pool placement interns site names in: each text is kept once and outlives what it was
// copied from, and a full pool hands out texts that own their copy instead of growing.
#include "orchestrator/placement/text_pool.hpp"

#include "fixture_world.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace orch::test {
namespace {

TEST_CASE("an interned text is kept once and outlives the text it was copied from", "[placement]") {
    placement::TextPool pool(placement::TextPool::kMaxBytes);
    std::string source = "SITE-1_nova";
    const placement::SharedText first = pool.Intern(source);
    source.assign(source.size(), '#');
    const placement::SharedText second = pool.Intern("SITE-1_nova");
    CHECK(first == "SITE-1_nova");
    CHECK(second.view().data() == first.view().data());
    CHECK(pool.Intern("").empty());
}

TEST_CASE("a full pool hands out texts that own their copy and stops growing", "[placement]") {
    placement::TextPool pool(300);  // room for about two entries
    std::vector<placement::SharedText> texts;
    for (int i = 0; i < 10; ++i) {
        texts.push_back(pool.Intern("provider-" + std::to_string(i)));
    }
    CHECK(pool.bytes() <= 300);
    for (int i = 0; i < 10; ++i) {
        CHECK(texts[static_cast<std::size_t>(i)] == "provider-" + std::to_string(i));
    }
    // Past the bound nothing is added: the same text twice gives two copies.
    CHECK(pool.Intern("provider-9").view().data() != texts[9].view().data());
}

TEST_CASE("verdicts show the site names interned in the process's pool", "[placement]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec(1));
    REQUIRE(!decision.verdicts.empty());
    auto& pool = placement::TextPool::Process();
    for (const auto& verdict : decision.verdicts) {
        INFO(verdict.service_id);
        // Interning a text the pool holds gives back the pool's copy: the verdict shows that copy.
        CHECK(pool.Intern(verdict.service_id).view().data() == verdict.service_id.view().data());
        CHECK(pool.Intern(verdict.provider_id).view().data() == verdict.provider_id.view().data());
        CHECK(pool.Intern(verdict.provider_name).view().data() == verdict.provider_name.view().data());
    }
}

}  // namespace
}  // namespace orch::test
