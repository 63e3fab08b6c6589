#include <orchestrator/workflow/caching_template_service.hpp>

#include <catch2/catch.hpp>

using orch::Json;
using orch::workflow::CachingTemplateService;

namespace {

// Counts builds and names the spec after its inputs, so a wrong cache hit shows.
class CountingTemplates final : public orch::workflow::TemplateService {
   public:
    orch::Result<orch::tosca::DeploymentSpec> Build(const std::string& text, const Json& parameters) override {
        ++builds;
        if (text == "bad") {
            return orch::Error::InvalidArgument("Error parsing TOSCA template");
        }
        orch::tosca::DeploymentSpec spec;
        spec.description = text + "|" + parameters.dump();
        return spec;
    }
    orch::Status Check(const std::string&) override { return orch::Ok(); }
    int builds = 0;
};

}  // namespace

TEST_CASE("the template cache builds each template and parameters once", "[workflow][cache]") {
    CountingTemplates inner;
    CachingTemplateService cache(inner, 2);
    CHECK(cache.Build("a", Json{{"n", 1}})->description == "a|{\"n\":1}");
    CHECK(cache.Build("a", Json{{"n", 1}})->description == "a|{\"n\":1}");
    CHECK(inner.builds == 1);
    // Other parameters or another text are other specs.
    CHECK(cache.Build("a", Json{{"n", 2}})->description == "a|{\"n\":2}");
    CHECK(inner.builds == 2);
    CHECK(cache.Stats().hits == 1);
}

TEST_CASE("the template cache evicts the least recently used spec", "[workflow][cache]") {
    CountingTemplates inner;
    CachingTemplateService cache(inner, 2);
    REQUIRE(cache.Build("a", Json::object()));
    REQUIRE(cache.Build("b", Json::object()));
    REQUIRE(cache.Build("a", Json::object()));  // a is now the most recent
    REQUIRE(cache.Build("c", Json::object()));  // evicts b
    CHECK(cache.Stats().size == 2);
    const int before = inner.builds;
    REQUIRE(cache.Build("a", Json::object()));
    CHECK(inner.builds == before);
    REQUIRE(cache.Build("b", Json::object()));
    CHECK(inner.builds == before + 1);
}

TEST_CASE("the template cache does not keep failures", "[workflow][cache]") {
    CountingTemplates inner;
    CachingTemplateService cache(inner, 4);
    CHECK_FALSE(cache.Build("bad", Json::object()));
    CHECK_FALSE(cache.Build("bad", Json::object()));
    CHECK(inner.builds == 2);
    CHECK(cache.Stats().size == 0);
}
