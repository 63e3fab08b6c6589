// The parsed-import cache is bounded in bytes as well as entries: imports may be 2 MiB each, and
// an entry count alone (128 documents) would let an allow-listed host's files fill gigabytes.
#include "imports/document_cache.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;

/// `count` mirrored type documents of about `bytes` each, under a scratch directory.
struct Mirror {
    fs::path dir = fs::temp_directory_path() / ("tosca-import-cache-" + std::to_string(::getpid()));
    EngineOptions options;

    Mirror(int count, std::size_t bytes) {
        fs::create_directories(dir);
        for (int i = 0; i < count; ++i) {
            std::ofstream(dir / ("t" + std::to_string(i) + ".yaml"))
                << "tosca_definitions_version: tosca_simple_yaml_1_0\ndescription: " << std::string(bytes, 'd') << "\n";
        }
        options.mirrors.push_back({"https://types.example.org/", dir.string() + "/"});
    }
    ~Mirror() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    ImportLocation Location(int i) const {
        const std::string name = "t" + std::to_string(i) + ".yaml";
        return ImportLocation{true, "https://types.example.org/" + name, (dir / name).string()};
    }
};

TEST_CASE("the import cache keeps documents within its byte bound", "[tosca][imports][limits]") {
    const Mirror mirror(8, 200'000);
    const ImportResolver resolver(mirror.options);
    DocumentCache cache(128, 500'000);  // room for two 200 KB documents, not eight
    for (int i = 0; i < 8; ++i) {
        const auto parsed = cache.Get(mirror.Location(i), resolver, mirror.options);
        REQUIRE(parsed);
        CHECK(ApproxMemoryBytes(**parsed) >= 200'000);
        CHECK(cache.usage().bytes <= 500'000);
    }
    CHECK(cache.usage().entries == 2);
    // A document larger than the whole bound is served but not kept.
    DocumentCache tiny(128, 100'000);
    REQUIRE(tiny.Get(mirror.Location(0), resolver, mirror.options));
    CHECK(tiny.usage().entries == 0);
    CHECK(tiny.usage().bytes == 0);
}

TEST_CASE("tosca.import_cache_bytes configures the import caches' byte bound", "[tosca][imports][config]") {
    ConfigTree config;
    config.Set("tosca.import_cache_bytes", "16MiB");
    const auto options = EngineOptionsFromConfig(config);
    REQUIRE(options);
    CHECK(options->max_cached_import_bytes == (16u << 20));
}

}  // namespace
}  // namespace orch::tosca
