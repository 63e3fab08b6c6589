#pragma once

#include <string>

/// The kubelet the rig has not got, played by the tests through the API server, as a real
/// kubelet reports to it: two registered nodes and pod status written through the status
/// subresource. Nothing runs; the real scheduler and controllers react to what is reported.
namespace orch::test::kube::kubelet {

/// "gpu-node-1": two nvidia.com/gpu, labelled with the product, tainted nvidia.com/gpu:NoSchedule
/// as GPU nodes usually are. "cpu-node-1": no GPUs, no taint.
inline constexpr char kGpuNode[] = "gpu-node-1";
inline constexpr char kCpuNode[] = "cpu-node-1";
inline constexpr char kGpuProduct[] = "Tesla-V100-PCIE-16GB";
inline constexpr int kGpus = 2;

/// A container with this environment variable set to a non-zero number "exits" with it (only
/// pods that are not restarted: Jobs); every other container runs or succeeds.
inline constexpr char kExitCodeVariable[] = "FAKE_KUBELET_EXIT_CODE";

/// Registers both nodes as Ready, once per process (idempotent, safe from several processes).
void EnsureNodes();

/// Deletes namespace `ns` and removes its pods at once, as after a kubelet confirmed their end
/// (cleanup after a failed test; a missing namespace is fine).
void RemoveNamespace(const std::string& ns);

/// One kubelet pass over namespace `ns` (EnsureNodes first): pods bound
/// to our nodes and still Pending start (Running and Ready when restartPolicy is Always, else
/// Succeeded or Failed by kExitCodeVariable); pods being deleted are removed at once, since no
/// kubelet confirms their termination.
void Pass(const std::string& ns);

}  // namespace orch::test::kube::kubelet

/// Flux's part, played as the kubelet's is: no Flux controller runs on the rig.
namespace orch::test::kube::flux {

/// Reports the HelmRelease at `path` (its API path) installed through the status subresource, in
/// the shape the version's controller writes: Helm Operator for "v1" (phase Succeeded, release
/// deployed, Released=True), helm-controller for "v2" (Ready=True), both for the current
/// generation. Throws when the release is not there or the server refuses the status.
void ReportInstalled(const std::string& path, const std::string& flux_version);

}  // namespace orch::test::kube::flux
