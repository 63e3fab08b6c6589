#include "test_support/handler_harness.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

namespace orch::test {
namespace {

TEST_CASE("GET /types/v1/orchestrator.yaml serves the shipped types profile", "[api][types]") {
    HandlerHarness h;
    const auto res = h.Call("GET", "/types/v1/orchestrator.yaml");
    CHECK(res.status == 200);
    CHECK(res.content_type == "application/yaml");
    // The served bytes are the file the import mirror map resolves offline: one source of truth.
    CHECK(res.body == ReadFile(SourceDir() + "/tosca/profiles/v1/orchestrator.yaml"));
    CHECK(h.Call("GET", "/types/v2/orchestrator.yaml").status == 404);
    CHECK(h.Call("POST", "/types/v1/orchestrator.yaml").status == 405);
}

}  // namespace
}  // namespace orch::test
