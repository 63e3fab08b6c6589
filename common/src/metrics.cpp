#include "common/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace orch::metrics {
namespace {

std::string_view TypeName(Type type) {
    switch (type) {
        case Type::kCounter:
            return "counter";
        case Type::kGauge:
            return "gauge";
        case Type::kHistogram:
            return "histogram";
    }
    return "untyped";
}

// HELP text escapes only backslash and newline (exposition format 0.0.4).
std::string EscapeHelp(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

void AppendLabels(
    std::string& out,
    const std::vector<std::string>& names,
    const LabelValues& values,
    std::string_view extra_name = {},
    std::string_view extra_value = {}
) {
    if (names.empty() && extra_name.empty()) {
        return;
    }
    out += '{';
    bool first = true;
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
        out += first ? "" : ",";
        out += names[i] + "=\"" + EscapeLabelValue(values[i]) + '"';
        first = false;
    }
    if (!extra_name.empty()) {
        out += first ? "" : ",";
        out += std::string(extra_name) + "=\"" + std::string(extra_value) + '"';
    }
    out += '}';
}

void AppendLine(
    std::string& out,
    std::string_view name,
    const std::vector<std::string>& names,
    const LabelValues& values,
    double value,
    std::string_view extra_name = {},
    std::string_view extra_value = {}
) {
    out += name;
    AppendLabels(out, names, values, extra_name, extra_value);
    out += ' ';
    out += FormatValue(value);
    out += '\n';
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (const char c : value) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string FormatValue(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "+Inf" : "-Inf";
    }
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
    std::sort(bounds_.begin(), bounds_.end());
    bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
    counts_ = std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1);
}

void Histogram::Observe(double value) {
    const auto bucket =
        static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
    counts_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
    Snapshot snap;
    snap.bounds = bounds_;
    std::uint64_t running = 0;
    for (std::size_t i = 0; i <= bounds_.size(); ++i) {
        running += counts_[i].load(std::memory_order_relaxed);
        snap.cumulative.push_back(running);
    }
    // The +Inf bucket must equal _count; a concurrent Observe may land between the loads, so
    // the count is taken from the buckets rather than read separately.
    snap.count = running;
    snap.sum = sum_.load(std::memory_order_relaxed);
    return snap;
}

std::vector<double> LatencyBuckets() {
    return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

void RenderSample(
    std::string& out,
    const std::string& name,
    const std::vector<std::string>& label_names,
    const LabelValues& values,
    const Counter& counter
) {
    AppendLine(out, name, label_names, values, counter.Value());
}

void RenderSample(
    std::string& out,
    const std::string& name,
    const std::vector<std::string>& label_names,
    const LabelValues& values,
    const Gauge& gauge
) {
    AppendLine(out, name, label_names, values, gauge.Value());
}

void RenderSample(
    std::string& out,
    const std::string& name,
    const std::vector<std::string>& label_names,
    const LabelValues& values,
    const Histogram& histogram
) {
    const auto snap = histogram.Read();
    for (std::size_t i = 0; i < snap.cumulative.size(); ++i) {
        const std::string le = i < snap.bounds.size() ? FormatValue(snap.bounds[i]) : "+Inf";
        AppendLine(out, name + "_bucket", label_names, values, static_cast<double>(snap.cumulative[i]), "le", le);
    }
    AppendLine(out, name + "_sum", label_names, values, snap.sum);
    AppendLine(out, name + "_count", label_names, values, static_cast<double>(snap.count));
}

FamilyBase::FamilyBase(
    std::string name, std::string help, Type type, std::vector<std::string> label_names, std::size_t max_series
)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      max_series_(std::max<std::size_t>(1, max_series)) {}

void FamilyBase::Render(std::string& out) const {
    out += "# HELP " + name_ + ' ' + EscapeHelp(help_) + '\n';
    out += "# TYPE " + name_ + ' ' + std::string(TypeName(type_)) + '\n';
    const std::lock_guard lock(mutex_);
    RenderSeries(out);
}

template <typename T>
Family<T>& Registry::Add(
    const std::string& name,
    const std::string& help,
    Type type,
    std::vector<std::string> labels,
    std::size_t max_series,
    std::function<std::unique_ptr<T>()> make
) {
    const std::lock_guard lock(mutex_);
    if (const auto it = families_.find(name); it != families_.end()) {
        auto* existing = dynamic_cast<Family<T>*>(it->second.get());
        if (existing == nullptr || existing->label_names() != labels) {
            throw std::logic_error("metric " + name + " registered twice with different types or labels");
        }
        return *existing;
    }
    auto family = std::make_unique<Family<T>>(name, help, type, std::move(labels), max_series, std::move(make));
    auto& ref = *family;
    families_.emplace(name, std::move(family));
    return ref;
}

Family<Counter>& Registry::AddCounter(
    const std::string& name, const std::string& help, std::vector<std::string> labels, std::size_t max_series
) {
    return Add<Counter>(name, help, Type::kCounter, std::move(labels), max_series, [] {
        return std::make_unique<Counter>();
    });
}

Family<Gauge>& Registry::AddGauge(
    const std::string& name, const std::string& help, std::vector<std::string> labels, std::size_t max_series
) {
    return Add<Gauge>(name, help, Type::kGauge, std::move(labels), max_series, [] {
        return std::make_unique<Gauge>();
    });
}

Family<Histogram>& Registry::AddHistogram(
    const std::string& name,
    const std::string& help,
    std::vector<std::string> labels,
    std::vector<double> bounds,
    std::size_t max_series
) {
    return Add<Histogram>(name, help, Type::kHistogram, std::move(labels), max_series, [bounds = std::move(bounds)] {
        return std::make_unique<Histogram>(bounds);
    });
}

int Registry::AddCollector(std::function<void()> collect) {
    const std::lock_guard lock(mutex_);
    const int id = next_collector_++;
    collectors_.emplace(id, std::move(collect));
    return id;
}

void Registry::RemoveCollector(int id) {
    const std::lock_guard lock(mutex_);
    collectors_.erase(id);
}

std::string Registry::Render() const {
    // Collectors run outside the lock: they may register families or take their own locks.
    std::vector<std::function<void()>> collectors;
    {
        const std::lock_guard lock(mutex_);
        for (const auto& [id, collect] : collectors_) {
            collectors.push_back(collect);
        }
    }
    for (const auto& collect : collectors) {
        collect();
    }
    std::string out;
    const std::lock_guard lock(mutex_);
    for (const auto& [name, family] : families_) {
        family->Render(out);
    }
    return out;
}

Registry& DefaultRegistry() {
    static Registry registry;
    return registry;
}

}  // namespace orch::metrics
