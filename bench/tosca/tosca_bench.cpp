// tosca_bench: parses and validates every corpus template many times with the engine (imports
// cached, as in the server) and prints templates/second, per-template latency percentiles and
// peak RSS. Usage: tosca_bench CORPUS_DIR [SECONDS_PER_PHASE] [TYPICAL_TEMPLATE]
#include "tosca/engine.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Template {
    std::string path;
    std::string text;
};

std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

/// The corpus templates: every YAML file with a topology_template, except type libraries.
std::vector<Template> LoadCorpus(const fs::path& root) {
    std::vector<Template> out;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const auto ext = entry.path().extension().string();
        if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml")) {
            continue;
        }
        std::string text = Read(entry.path());
        if (text.find("topology_template") == std::string::npos || text.find("<pattern>") != std::string::npos) {
            continue;
        }
        out.push_back({entry.path().string(), std::move(text)});
    }
    std::sort(out.begin(), out.end(), [](const Template& a, const Template& b) { return a.path < b.path; });
    return out;
}

double Percentile(std::vector<double> values, double p) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const auto index = static_cast<std::size_t>(std::llround(p * static_cast<double>(values.size() - 1)));
    return values[std::min(index, values.size() - 1)];
}

double CpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

long PeakRssKiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: tosca_bench CORPUS_DIR [SECONDS_PER_PHASE] [TYPICAL_TEMPLATE]\n";
        return 2;
    }
    const fs::path corpus = argv[1];
    const double seconds = argc > 2 ? std::stod(argv[2]) : 3.0;
    const std::string typical = argc > 3 ? argv[3] : "indigo-dc-tosca-templates/deep-oc/deep-oc-marathon-webdav.yml";
    orch::tosca::EngineOptions options;
    options.allow_file_imports = true;
    options.mirrors.push_back(
        {"https://raw.githubusercontent.com/indigo-dc/tosca-types/", (corpus / "indigo-dc-tosca-types/refs").string()}
    );
    const orch::tosca::TemplateEngine engine(options);
    const std::vector<Template> templates = LoadCorpus(corpus);
    std::size_t valid = 0;
    for (const auto& t : templates) {  // warm-up: fills the import cache
        orch::tosca::TemplateRequest request;
        request.file_name = t.path;
        request.base_directory = fs::path(t.path).parent_path().string();
        valid += engine.Check(t.text, request).valid() ? 1 : 0;
    }
    std::size_t checks = 0;
    const double cpu_start = CpuSeconds();
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
        for (const auto& t : templates) {
            orch::tosca::TemplateRequest request;
            request.file_name = t.path;
            request.base_directory = fs::path(t.path).parent_path().string();
            (void)engine.Check(t.text, request);
            ++checks;
        }
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double cpu = CpuSeconds() - cpu_start;
    const auto typical_it = std::find_if(templates.begin(), templates.end(), [&](const Template& t) {
        return t.path.find(typical) != std::string::npos;
    });
    std::vector<double> latencies;
    if (typical_it != templates.end()) {
        orch::tosca::TemplateRequest request;
        request.file_name = typical_it->path;
        const auto until = Clock::now() + std::chrono::duration<double>(seconds);
        while (Clock::now() < until) {
            const auto t0 = Clock::now();
            (void)engine.Check(typical_it->text, request);
            latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
    }
    std::cout << "templates: " << templates.size() << " (" << valid << " valid)\n";
    std::cout << "checks: " << checks << " in " << elapsed << " s wall, " << cpu << " s CPU\n";
    std::cout << "throughput_templates_per_s: " << static_cast<double>(checks) / elapsed << "\n";
    std::cout << "throughput_templates_per_cpu_s: " << static_cast<double>(checks) / cpu << "\n";
    std::cout << "typical_template: " << typical << " ("
              << (typical_it != templates.end() ? typical_it->text.size() : 0) << " bytes)\n";
    std::cout << "typical_latency_us: p50 " << Percentile(latencies, 0.5) << " p90 " << Percentile(latencies, 0.9)
              << " p99 " << Percentile(latencies, 0.99) << "\n";
    std::cout << "peak_rss_kib: " << PeakRssKiB() << "\n";
    return 0;
}
