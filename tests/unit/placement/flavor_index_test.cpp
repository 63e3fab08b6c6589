// The flavor index answers exactly as a scan of every flavor does, and is rebuilt when the
// catalogue changes (and only then).
#include "synthetic_world.hpp"

#include <orchestrator/placement/flavor_index.hpp>

#include <catch2/catch.hpp>

#include <random>

namespace orch::test {
namespace {

const char* const kVendors[] = {"nvidia", "NVIDIA", "amd", ""};
const char* const kModels[] = {
    "Tesla T4", "Tesla V100-PCIE-32GB", "V100", "A100-SXM4-40GB", "NVIDIA A40", "RTX A4000", "tesla v100", ""};

template <typename T>
const T& Pick(std::mt19937& random, const T* items, std::size_t n) {
    return items[std::uniform_int_distribution<std::size_t>(0, n - 1)(random)];
}

int Between(std::mt19937& random, int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
}

// Small value ranges on purpose: many flavors tie on (GPUs, vCPUs, RAM, disk), which tests the
// "first listed wins" rule, and many needs fit nothing, which tests the misses.
cmdb::Flavor RandomFlavor(std::mt19937& random, int n) {
    cmdb::Flavor f;
    f.id = "f" + std::to_string(n);
    f.name = f.id;
    f.gpus = std::array{0, 0, 1, 2, 4, 8}[static_cast<std::size_t>(Between(random, 0, 5))];
    f.gpu_vendor = Pick(random, kVendors, std::size(kVendors));
    f.gpu_model = Pick(random, kModels, std::size(kModels));
    if (Between(random, 0, 3) == 0) {
        f.gpu_memory_mb = static_cast<std::uint64_t>(Between(random, 0, 4)) * 8192;
    }
    f.vcpus = Between(random, 1, 4) * 4;
    f.ram_mb = static_cast<std::uint64_t>(Between(random, 1, 4)) * 8192;
    f.disk_gb = static_cast<std::uint64_t>(Between(random, 1, 3)) * 40;
    return f;
}

std::shared_ptr<const cmdb::Provider> RandomProvider(std::mt19937& random, int site) {
    auto provider = std::make_shared<cmdb::Provider>();
    provider->id = "P" + std::to_string(site);
    cmdb::Service service;
    service.id = provider->id + "-nova";
    for (int t = 0; t < 2; ++t) {
        cmdb::Tenant tenant;
        tenant.id = service.id + "-t" + std::to_string(t);
        const int flavors = Between(random, 0, 25);
        for (int f = 0; f < flavors; ++f) {
            tenant.flavors.push_back(RandomFlavor(random, f));
        }
        service.tenants.push_back(std::move(tenant));
    }
    provider->services.push_back(std::move(service));
    return provider;
}

placement::FlavorNeed RandomNeed(std::mt19937& random) {
    placement::FlavorNeed need;
    need.gpu.count = std::array{0, 0, 1, 2, 3, 4, 8, 9}[static_cast<std::size_t>(Between(random, 0, 7))];
    need.gpu.vendor = Pick(random, kVendors, std::size(kVendors));
    need.gpu.model = std::array{
        "", "V100", "v100-pcie", "T4", "A40", "A100", "H100"}[static_cast<std::size_t>(Between(random, 0, 6))];
    if (Between(random, 0, 3) == 0) {
        need.gpu.memory_mb = static_cast<std::uint64_t>(Between(random, 0, 3)) * 16384;
    }
    need.cpus = Between(random, 0, 17) * 0.75;
    need.mem_mb = static_cast<std::uint64_t>(Between(random, 0, 5)) * 6000;
    need.disk_mb = static_cast<std::uint64_t>(Between(random, 0, 4)) * 30000;
    return need;
}

std::vector<std::shared_ptr<const cmdb::Provider>> RandomProviders(std::uint32_t seed, int sites) {
    std::mt19937 random(seed);
    std::vector<std::shared_ptr<const cmdb::Provider>> providers;
    for (int i = 0; i < sites; ++i) {
        providers.push_back(RandomProvider(random, i));
    }
    return providers;
}

}  // namespace

TEST_CASE("flavor index: same choice as a scan of every flavor on random catalogues", "[placement][flavor_index]") {
    std::size_t found = 0;
    std::size_t missed = 0;
    for (const std::uint32_t seed : {1U, 7U, 42U, 2024U}) {
        const cmdb::Catalogue catalogue(RandomProviders(seed, 40));
        const placement::FlavorIndex index(catalogue);
        std::mt19937 random(seed + 1);
        for (int n = 0; n < 300; ++n) {
            const auto need = RandomNeed(random);
            const auto query = index.Compile(need);
            for (const auto& provider : catalogue.providers()) {
                for (const auto& tenant : provider->services.front().tenants) {
                    const auto* scanned = placement::ScanSmallestFlavor(need, tenant.flavors);
                    const auto* indexed = index.Smallest(tenant, query);
                    INFO("seed " << seed << ", need " << n << ", tenant " << tenant.id);
                    REQUIRE(indexed == scanned);  // the same flavor object, ties included
                    ++(scanned != nullptr ? found : missed);
                }
            }
        }
    }
    // Both outcomes must be common, or the comparison above proves little.
    CHECK(found > 10'000);
    CHECK(missed > 10'000);
}

TEST_CASE("flavor index: the scan itself follows the documented rule", "[placement][flavor_index]") {
    std::vector<cmdb::Flavor> flavors(4);
    flavors[0] = {"a", "a", "big-v100", 16, 65536, 80, 2, "nvidia", "Tesla V100-PCIE-32GB", std::nullopt, false};
    flavors[1] = {"b", "b", "t4", 4, 16384, 40, 2, "nvidia", "Tesla T4", std::nullopt, false};
    flavors[2] = {"c", "c", "v100", 8, 32768, 40, 2, "NVIDIA", "Tesla V100-PCIE-32GB", std::nullopt, false};
    flavors[3] = {"d", "d", "v100-again", 8, 32768, 40, 2, "nvidia", "V100", 32768, false};
    placement::FlavorNeed need;
    need.gpu = {2, "nvidia", "V100", std::nullopt};
    need.cpus = 4;
    CHECK(placement::ScanSmallestFlavor(need, flavors) == &flavors[2]);  // smallest V100; c before d on a tie
    need.gpu.memory_mb = 40000;
    CHECK(placement::ScanSmallestFlavor(need, flavors) == nullptr);
    need.gpu = {0, "", "", std::nullopt};
    CHECK(placement::ScanSmallestFlavor(need, flavors) == &flavors[1]);  // no GPU asked: any model
}

TEST_CASE("flavor index: a tenant it does not know is scanned", "[placement][flavor_index]") {
    const cmdb::Catalogue indexed(RandomProviders(3, 5));
    const cmdb::Catalogue other(RandomProviders(4, 5));
    const placement::FlavorIndex index(indexed);
    placement::FlavorNeed need;
    need.cpus = 1;
    const auto query = index.Compile(need);
    for (const auto& tenant : other.providers().front()->services.front().tenants) {
        CHECK(index.Smallest(tenant, query) == placement::ScanSmallestFlavor(need, tenant.flavors));
    }
}

TEST_CASE(
    "flavor index cache: reused while the providers are the same, rebuilt when one changes", "[placement][flavor_index]"
) {
    auto providers = RandomProviders(5, 10);
    placement::FlavorIndexCache cache;
    const cmdb::Catalogue first(providers);
    const auto index = cache.For(first);
    CHECK(cache.builds() == 1);
    // A new catalogue object over the same providers (what the CMDB source hands out per placement).
    const cmdb::Catalogue same(providers);
    CHECK(cache.For(same) == index);
    CHECK(cache.builds() == 1);

    // One provider re-read: its new flavor must be found, so the index is rebuilt.
    auto changed = std::make_shared<cmdb::Provider>(*providers[3]);
    cmdb::Flavor huge;
    huge.name = "huge";
    huge.gpus = 16;
    huge.gpu_vendor = "nvidia";
    huge.gpu_model = "H100";
    huge.vcpus = 64;
    huge.ram_mb = 1 << 20;
    huge.disk_gb = 1000;
    changed->services.front().tenants.front().flavors.push_back(huge);
    providers[3] = changed;
    const cmdb::Catalogue next(providers);
    const auto rebuilt = cache.For(next);
    CHECK(rebuilt != index);
    CHECK(cache.builds() == 2);
    placement::FlavorNeed need;
    need.gpu = {16, "NVIDIA", "h100", std::nullopt};
    const auto& tenant = next.providers()[3]->services.front().tenants.front();
    const auto* chosen = rebuilt->Smallest(tenant, rebuilt->Compile(need));
    REQUIRE(chosen != nullptr);
    CHECK(chosen->name == "huge");
    CHECK(cache.For(next) == rebuilt);
    CHECK(cache.builds() == 2);
}

TEST_CASE(
    "placer: one flavor index per catalogue version, one history read per placement", "[placement][flavor_index]"
) {
    SyntheticWorld world({}, false);
    const auto spec = MarathonSpec(0);  // accepted by three services
    REQUIRE(world.Place(spec).ranked.size() == 3);
    REQUIRE(world.Place(spec).ranked.size() == 3);
    CHECK(world.placer->flavor_index_builds() == 1);
    CHECK(world.history.reads() == 2);  // once per placement, not once per accepted service
}

}  // namespace orch::test
