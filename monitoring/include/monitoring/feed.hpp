#pragma once

#include "monitoring/signals.hpp"

#include <memory>
#include <string>
#include <vector>

namespace orch::monitoring {

/// A monitoring feed. Collect never fails: what cannot be read is absent from the snapshot and
/// explained in its notes, because monitoring must never block a placement. Collect blocks on
/// the network (bounded by the feed's timeouts); call it from a worker. Thread-safe.
class Feed {
   public:
    virtual ~Feed() = default;
    virtual std::shared_ptr<const Snapshot> Collect(const std::vector<std::string>& provider_ids) = 0;
    /// The URL shown as `monitoring_url` by GET /configuration; empty when there is none.
    virtual std::string Url() const = 0;
    /// "none", "indigo" or "prometheus" (for notes and explanations).
    virtual std::string Kind() const = 0;
};

/// No monitoring configured: every signal is unknown.
class NoFeed : public Feed {
   public:
    std::shared_ptr<const Snapshot> Collect(const std::vector<std::string>&) override;
    std::string Url() const override { return {}; }
    std::string Kind() const override { return "none"; }
};

/// A fixed snapshot (tests, benchmarks).
class StaticFeed : public Feed {
   public:
    explicit StaticFeed(std::shared_ptr<const Snapshot> snapshot) : snapshot_(std::move(snapshot)) {}
    std::shared_ptr<const Snapshot> Collect(const std::vector<std::string>&) override { return snapshot_; }
    std::string Url() const override { return {}; }
    std::string Kind() const override { return "static"; }

   private:
    std::shared_ptr<const Snapshot> snapshot_;
};

}  // namespace orch::monitoring
