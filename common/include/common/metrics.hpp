#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace orch::metrics {

using LabelValues = std::vector<std::string>;

/// Label values used for every new series once a family holds max_series: label cardinality
/// stays bounded even if a caller passes unbounded values by mistake.
inline constexpr std::string_view kOverflowLabel = "other";
inline constexpr std::size_t kDefaultMaxSeries = 256;

class Counter {
   public:
    void Inc(double by = 1.0) { value_.fetch_add(by, std::memory_order_relaxed); }
    double Value() const { return value_.load(std::memory_order_relaxed); }

   private:
    std::atomic<double> value_{0.0};
};

class Gauge {
   public:
    void Set(double value) { value_.store(value, std::memory_order_relaxed); }
    void Add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
    double Value() const { return value_.load(std::memory_order_relaxed); }

   private:
    std::atomic<double> value_{0.0};
};

/// Fixed buckets (upper bounds, ascending); one atomic per bucket, no lock on Observe.
class Histogram {
   public:
    explicit Histogram(std::vector<double> bounds);
    void Observe(double value);

    struct Snapshot {
        std::vector<double> bounds;
        std::vector<std::uint64_t> cumulative;  ///< one per bound, then +Inf
        double sum = 0;
        std::uint64_t count = 0;
    };
    Snapshot Read() const;

   private:
    std::vector<double> bounds_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // bounds_.size() + 1 (the +Inf bucket)
    std::atomic<double> sum_{0.0};
    std::atomic<std::uint64_t> count_{0};
};

/// Latency buckets in seconds, 1 ms .. 30 s.
std::vector<double> LatencyBuckets();

enum class Type { kCounter, kGauge, kHistogram };

/// One metric name with its label names and a bounded set of series.
class FamilyBase {
   public:
    FamilyBase(
        std::string name, std::string help, Type type, std::vector<std::string> label_names, std::size_t max_series
    );
    virtual ~FamilyBase() = default;
    FamilyBase(const FamilyBase&) = delete;
    FamilyBase& operator=(const FamilyBase&) = delete;

    const std::string& name() const { return name_; }
    Type type() const { return type_; }
    const std::vector<std::string>& label_names() const { return label_names_; }
    /// Appends the family in the Prometheus text exposition format (0.0.4).
    void Render(std::string& out) const;

   protected:
    /// Appends every series' sample lines; called with mutex_ held.
    virtual void RenderSeries(std::string& out) const = 0;

    std::string name_;
    std::string help_;
    Type type_;
    std::vector<std::string> label_names_;
    std::size_t max_series_;
    mutable std::mutex mutex_;
};

void RenderSample(
    std::string& out,
    const std::string& name,
    const std::vector<std::string>& label_names,
    const LabelValues& values,
    const Counter& counter
);
void RenderSample(
    std::string& out,
    const std::string& name,
    const std::vector<std::string>& label_names,
    const LabelValues& values,
    const Gauge& gauge
);
void RenderSample(
    std::string& out,
    const std::string& name,
    const std::vector<std::string>& label_names,
    const LabelValues& values,
    const Histogram& histogram
);

template <typename T>
class Family final : public FamilyBase {
   public:
    Family(
        std::string name,
        std::string help,
        Type type,
        std::vector<std::string> label_names,
        std::size_t max_series,
        std::function<std::unique_ptr<T>()> make
    )
        : FamilyBase(std::move(name), std::move(help), type, std::move(label_names), max_series),
          make_(std::move(make)) {}

    /// The series for these label values (created on first use). The reference stays valid for
    /// the family's lifetime, so hot paths may keep it.
    T& With(const LabelValues& values) {
        const std::lock_guard lock(mutex_);
        // Every request records here: an existing series is found without copying the labels.
        if (values.size() == label_names_.size()) {
            if (const auto found = series_.find(values); found != series_.end()) {
                return *found->second;
            }
        }
        LabelValues key = values;
        key.resize(label_names_.size());  // a wrong count is a programming error, never a crash
        auto it = series_.find(key);
        if (it == series_.end() && series_.size() >= max_series_) {
            key.assign(label_names_.size(), std::string(kOverflowLabel));
            it = series_.find(key);
        }
        if (it == series_.end()) {
            it = series_.emplace(std::move(key), make_()).first;
        }
        return *it->second;
    }

   private:
    void RenderSeries(std::string& out) const override {
        for (const auto& [values, series] : series_) {
            RenderSample(out, name_, label_names_, values, *series);
        }
    }

    std::function<std::unique_ptr<T>()> make_;
    std::map<LabelValues, std::unique_ptr<T>> series_;
};

/// A set of families rendered together. Families are created once (usually at startup) and live
/// as long as the registry; registering an existing name returns it (same type and labels).
class Registry {
   public:
    Family<Counter>& AddCounter(
        const std::string& name,
        const std::string& help,
        std::vector<std::string> labels = {},
        std::size_t max_series = kDefaultMaxSeries
    );
    Family<Gauge>& AddGauge(
        const std::string& name,
        const std::string& help,
        std::vector<std::string> labels = {},
        std::size_t max_series = kDefaultMaxSeries
    );
    Family<Histogram>& AddHistogram(
        const std::string& name,
        const std::string& help,
        std::vector<std::string> labels,
        std::vector<double> bounds,
        std::size_t max_series = kDefaultMaxSeries
    );

    /// Runs before each Render (refreshes gauges read from elsewhere: pool stats, queue depth).
    /// Returns an id for RemoveCollector; remove it before what it reads is destroyed.
    int AddCollector(std::function<void()> collect);
    void RemoveCollector(int id);

    std::string Render() const;

   private:
    template <typename T>
    Family<T>& Add(
        const std::string& name,
        const std::string& help,
        Type type,
        std::vector<std::string> labels,
        std::size_t max_series,
        std::function<std::unique_ptr<T>()> make
    );

    mutable std::mutex mutex_;
    std::map<std::string, std::unique_ptr<FamilyBase>> families_;
    std::map<int, std::function<void()>> collectors_;
    int next_collector_ = 1;
};

/// The process-wide registry that modules record into and GET /metrics renders.
Registry& DefaultRegistry();

/// Escapes a label value for the text format: backslash, double quote and newline.
std::string EscapeLabelValue(std::string_view value);
/// Prometheus number syntax: shortest round-trip decimal, +Inf, -Inf, NaN.
std::string FormatValue(double value);

}  // namespace orch::metrics
