#include <common/metrics.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <thread>

namespace {

using orch::metrics::Registry;

// The value of one sample line "name{labels} value" in a rendering; NaN when absent.
double Sample(const std::string& text, const std::string& series) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(series + ' ', 0) == 0) {
            return std::stod(line.substr(series.size() + 1));
        }
    }
    return std::nan("");
}

}  // namespace

TEST_CASE("counters and gauges render with HELP, TYPE and escaped labels", "[metrics]") {
    Registry registry;
    auto& requests = registry.AddCounter("orch_test_total", "Requests\nseen", {"route", "status"});
    requests.With({"/a", "200"}).Inc();
    requests.With({"/a", "200"}).Inc(2);
    requests.With({"say \"hi\"\\", "500"}).Inc();
    registry.AddGauge("orch_depth", "Depth").With({}).Set(7.5);
    const auto text = registry.Render();
    CHECK(text.find("# HELP orch_test_total Requests\\nseen\n") != std::string::npos);
    CHECK(text.find("# TYPE orch_test_total counter\n") != std::string::npos);
    CHECK(text.find("# TYPE orch_depth gauge\n") != std::string::npos);
    CHECK(Sample(text, "orch_test_total{route=\"/a\",status=\"200\"}") == 3);
    CHECK(Sample(text, "orch_test_total{route=\"say \\\"hi\\\"\\\\\",status=\"500\"}") == 1);
    CHECK(Sample(text, "orch_depth") == 7.5);
}

TEST_CASE("histograms have cumulative buckets, +Inf, _sum and _count", "[metrics]") {
    Registry registry;
    auto& latency = registry.AddHistogram("orch_latency_seconds", "Latency", {"op"}, {0.1, 1, 0.5});
    auto& op = latency.With({"x"});
    op.Observe(0.05);
    op.Observe(0.1);  // upper bounds are inclusive (le)
    op.Observe(0.7);
    op.Observe(99);
    const auto text = registry.Render();
    CHECK(text.find("# TYPE orch_latency_seconds histogram\n") != std::string::npos);
    CHECK(Sample(text, "orch_latency_seconds_bucket{op=\"x\",le=\"0.1\"}") == 2);
    CHECK(Sample(text, "orch_latency_seconds_bucket{op=\"x\",le=\"0.5\"}") == 2);
    CHECK(Sample(text, "orch_latency_seconds_bucket{op=\"x\",le=\"1\"}") == 3);
    CHECK(Sample(text, "orch_latency_seconds_bucket{op=\"x\",le=\"+Inf\"}") == 4);
    CHECK(Sample(text, "orch_latency_seconds_count{op=\"x\"}") == 4);
    CHECK(Sample(text, "orch_latency_seconds_sum{op=\"x\"}") == Approx(99.85));
}

TEST_CASE("label sets are bounded: new series beyond the limit share the overflow series", "[metrics]") {
    Registry registry;
    auto& family = registry.AddCounter("orch_bounded_total", "Bounded", {"key"}, 3);
    for (int i = 0; i < 100; ++i) {
        family.With({"k" + std::to_string(i)}).Inc();
    }
    family.With({"k1"}).Inc();  // an existing series still counts on its own
    const auto text = registry.Render();
    CHECK(Sample(text, "orch_bounded_total{key=\"k1\"}") == 2);
    CHECK(Sample(text, "orch_bounded_total{key=\"other\"}") == 97);
    CHECK(std::isnan(Sample(text, "orch_bounded_total{key=\"k50\"}")));
}

TEST_CASE("registering a name twice returns the same family, a conflicting one throws", "[metrics]") {
    Registry registry;
    auto& first = registry.AddCounter("orch_same_total", "x", {"a"});
    auto& second = registry.AddCounter("orch_same_total", "x", {"a"});
    CHECK(&first == &second);
    CHECK_THROWS_AS(registry.AddGauge("orch_same_total", "x", {"a"}), std::logic_error);
    CHECK_THROWS_AS(registry.AddCounter("orch_same_total", "x", {"b"}), std::logic_error);
}

TEST_CASE("collectors refresh gauges before each rendering and can be removed", "[metrics]") {
    Registry registry;
    auto& gauge = registry.AddGauge("orch_collected", "x");
    int calls = 0;
    const int id = registry.AddCollector([&] { gauge.With({}).Set(++calls); });
    CHECK(Sample(registry.Render(), "orch_collected") == 1);
    CHECK(Sample(registry.Render(), "orch_collected") == 2);
    registry.RemoveCollector(id);
    CHECK(Sample(registry.Render(), "orch_collected") == 2);
}

TEST_CASE("concurrent increments are not lost", "[metrics]") {
    Registry registry;
    auto& family = registry.AddCounter("orch_concurrent_total", "x", {"t"});
    auto& histogram = registry.AddHistogram("orch_concurrent_seconds", "x", {}, {1});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 10'000; ++i) {
                family.With({"same"}).Inc();
                histogram.With({}).Observe(0.5);
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    const auto text = registry.Render();
    CHECK(Sample(text, "orch_concurrent_total{t=\"same\"}") == 40'000);
    CHECK(Sample(text, "orch_concurrent_seconds_count") == 40'000);
    CHECK(Sample(text, "orch_concurrent_seconds_bucket{le=\"1\"}") == 40'000);
}

TEST_CASE("numbers use the exposition syntax", "[metrics]") {
    using orch::metrics::FormatValue;
    CHECK(FormatValue(3) == "3");
    CHECK(FormatValue(0.25) == "0.25");
    CHECK(FormatValue(std::numeric_limits<double>::infinity()) == "+Inf");
    CHECK(FormatValue(-std::numeric_limits<double>::infinity()) == "-Inf");
    CHECK(FormatValue(std::nan("")) == "NaN");
}
