#include <orchestrator/workflow/caching_template_service.hpp>

#include <catch2/catch.hpp>

using orch::Json;
using orch::workflow::CachingTemplateService;

static const Json& kNone = orch::workflow::NoAcceptedParameters();

namespace {

// Counts builds and names the spec after its inputs, so a wrong cache hit shows.
class CountingTemplates final : public orch::workflow::TemplateService {
   public:
    orch::Result<orch::tosca::DeploymentSpec> Build(const std::string& text, const Json& parameters, const Json&)
        override {
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
    CHECK(cache.Build("a", Json{{"n", 1}}, kNone)->description == "a|{\"n\":1}");
    CHECK(cache.Build("a", Json{{"n", 1}}, kNone)->description == "a|{\"n\":1}");
    CHECK(inner.builds == 1);
    // Other parameters or another text are other specs.
    CHECK(cache.Build("a", Json{{"n", 2}}, kNone)->description == "a|{\"n\":2}");
    CHECK(inner.builds == 2);
    CHECK(cache.Stats().hits == 1);
}

TEST_CASE("the template cache evicts the least recently used spec", "[workflow][cache]") {
    CountingTemplates inner;
    CachingTemplateService cache(inner, 2);
    REQUIRE(cache.Build("a", Json::object(), kNone));
    REQUIRE(cache.Build("b", Json::object(), kNone));
    REQUIRE(cache.Build("a", Json::object(), kNone));  // a is now the most recent
    REQUIRE(cache.Build("c", Json::object(), kNone));  // evicts b
    CHECK(cache.Stats().size == 2);
    const int before = inner.builds;
    REQUIRE(cache.Build("a", Json::object(), kNone));
    CHECK(inner.builds == before);
    REQUIRE(cache.Build("b", Json::object(), kNone));
    CHECK(inner.builds == before + 1);
}

TEST_CASE("the template cache does not keep failures", "[workflow][cache]") {
    CountingTemplates inner;
    CachingTemplateService cache(inner, 4);
    CHECK_FALSE(cache.Build("bad", Json::object(), kNone));
    CHECK_FALSE(cache.Build("bad", Json::object(), kNone));
    CHECK(inner.builds == 2);
    CHECK(cache.Stats().size == 0);
}

namespace {

// Builds specs whose metadata holds `text` as one string: the spec's memory follows its template.
class LargeSpecs final : public orch::workflow::TemplateService {
   public:
    orch::Result<orch::tosca::DeploymentSpec> Build(const std::string& text, const Json&, const Json&) override {
        ++builds;
        orch::tosca::DeploymentSpec spec;
        spec.metadata["copies"] = Json::array();
        for (int i = 0; i < 8; ++i) {
            spec.metadata["copies"].push_back(text);  // as aliases of one scalar expand when copied
        }
        return spec;
    }
    orch::Status Check(const std::string&) override { return orch::Ok(); }
    int builds = 0;
};

}  // namespace

TEST_CASE("the template cache is bounded in bytes, not only in entries", "[workflow][cache][limits]") {
    LargeSpecs inner;
    // 256 entries allowed, 4 MiB: each spec holds 8 x 256 KiB, so at most one 2 MiB spec fits at a time.
    CachingTemplateService cache(inner, orch::workflow::TemplateCacheOptions{256, 4u << 20});
    std::uint64_t largest = 0;
    for (char c = 'a'; c < 'k'; ++c) {
        REQUIRE(cache.Build(std::string(256u << 10, c), Json::object(), kNone));
        largest = std::max(largest, cache.Stats().bytes);
        CHECK(cache.Stats().bytes <= (4u << 20));
    }
    CHECK(cache.Stats().size < 10);
    CHECK(cache.Stats().size >= 1);
    CHECK(largest > (2u << 20));  // the estimate counts the copied text
    // The most recent stays cached; the oldest went.
    const int before = inner.builds;
    REQUIRE(cache.Build(std::string(256u << 10, 'j'), Json::object(), kNone));
    CHECK(inner.builds == before);
    REQUIRE(cache.Build(std::string(256u << 10, 'a'), Json::object(), kNone));
    CHECK(inner.builds == before + 1);
}

TEST_CASE("a spec larger than the whole byte bound is served but not kept", "[workflow][cache][limits]") {
    LargeSpecs inner;
    CachingTemplateService cache(inner, orch::workflow::TemplateCacheOptions{256, 1u << 20});
    REQUIRE(cache.Build(std::string(256u << 10, 'x'), Json::object(), kNone));  // ~2 MiB of copies
    CHECK(cache.Stats().size == 0);
    CHECK(cache.Stats().bytes == 0);
    REQUIRE(cache.Build("small", Json::object(), kNone));
    CHECK(cache.Stats().size == 1);
}

TEST_CASE("template cache bounds come from the configuration", "[workflow][cache][config]") {
    orch::ConfigTree config;
    config.Set("tosca.template_cache_bytes", "8MiB");
    config.Set("tosca.template_cache_entries", "16");
    const auto options = orch::workflow::TemplateCacheOptionsFromConfig(config);
    REQUIRE(options);
    CHECK(options->max_bytes == (8u << 20));
    CHECK(options->max_entries == 16);
    const auto defaults = orch::workflow::TemplateCacheOptionsFromConfig(orch::ConfigTree{});
    REQUIRE(defaults);
    CHECK(defaults->max_bytes == (64u << 20));
    CHECK(defaults->max_entries == 256);
}

namespace {

// Refuses the parameter "legacy" (no input) unless accepted, as the TOSCA engine does.
class LegacyParameters final : public orch::workflow::TemplateService {
   public:
    orch::Result<orch::tosca::DeploymentSpec> Build(const std::string&, const Json& parameters, const Json& accepted)
        override {
        ++builds;
        orch::tosca::DeploymentSpec spec;
        if (parameters.contains("legacy")) {
            if (!accepted.contains("legacy")) {
                return orch::Error::InvalidArgument("Parameter 'legacy' is not an input of the template");
            }
            spec.accepted_unknown_parameters.push_back("legacy");
        }
        return spec;
    }
    orch::Status Check(const std::string&) override { return orch::Ok(); }
    int builds = 0;
};

}  // namespace

TEST_CASE("a spec the workflow built with accepted parameters is not served to a request", "[workflow][cache]") {
    LegacyParameters inner;
    CachingTemplateService cache(inner, 4);
    const Json stored{{"legacy", true}};
    REQUIRE(cache.Build("t", stored, stored));  // the workflow: the stored row's parameters
    CHECK(cache.Build("t", stored, stored));    // cached for the workflow's next step
    CHECK(inner.builds == 1);
    const auto request = cache.Build("t", stored, kNone);  // a new request sending the same
    REQUIRE_FALSE(request);
    CHECK(request.error().message == "Parameter 'legacy' is not an input of the template");
}
