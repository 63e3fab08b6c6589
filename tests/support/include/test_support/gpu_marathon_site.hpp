#pragma once

// The GPU site the e2e tests of admission, quotas and idle reclamation run against: one provider
// (SIM-A) whose Mesos service has GPUs and whose Marathon is a site-sim, the demo group's SLA
// limiting its GPUs, and a Marathon app asking some. Each test wrote its own copy of these.
#include <string>

namespace orch::test {

/// What the catalogue says SIM-A's Mesos service has (the site-sim's agents should match).
struct GpuSiteSize {
    int gpus = 8;
    int cpus = 32;
    int mem_mb = 131072;
};

/// A file catalogue with SIM-A's Mesos and Marathon services, both at `marathon`'s URL.
std::string GpuMarathonCatalogue(const std::string& marathon, const GpuSiteSize& size = {});

/// The local SLA file: group demo prefers SIM-A_marathon, whose SLA allows `gpu_limit` GPUs.
std::string DemoGpuSla(int gpu_limit);

/// A TOSCA template of one Marathon Docker app (1 CPU, 1 GB) asking `gpus` GPUs.
std::string GpuMarathonApp(int gpus);

}  // namespace orch::test
