#pragma once

// Builders for placement tests: deployment specs as the TOSCA engine would produce them, and
// the fixture-backed sources (CMDB, SLAM, Zabbix) of ../shared/fixtures.

#include <cmdb/file_catalogue_source.hpp>
#include <cmdb/file_sla_source.hpp>
#include <common/json.hpp>
#include <tosca/deployment_spec.hpp>

#include <test_support/test_env.hpp>

#include <string>
#include <vector>

namespace orch::test {

inline tosca::NodeSpec VmNode(const std::string& name, double cpus, std::uint64_t mem_mb, int gpus) {
    tosca::NodeSpec node;
    node.name = name;
    node.type = "tosca.nodes.indigo.Compute";
    node.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    node.resources.cpus = cpus;
    node.resources.mem_mb = mem_mb;
    node.resources.gpu.count = gpus;
    return node;
}

/// Scenario A of the fixtures: 4 vCPUs, 16 GB, 1 GPU, Ubuntu 20.04 with GPU driver and CUDA.
inline tosca::DeploymentSpec GpuVmSpec(int gpus = 1) {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kVirtualMachines;
    auto node = VmNode("vm", 4, 16384, gpus);
    node.resources.os_type = "linux";
    node.resources.os_distribution = "ubuntu";
    node.resources.os_version = "20.04";
    node.resources.gpu_driver = "true";
    node.resources.cuda_support = true;
    spec.nodes.push_back(node);
    return spec;
}

inline tosca::NodeSpec ContainerNode(
    const std::string& name, const std::string& type, int gpus, const std::string& model = ""
) {
    tosca::NodeSpec node;
    node.name = name;
    node.type = type;
    node.type_chain = {
        type,
        "tosca.nodes.indigo.Container.Application.Docker",
        "tosca.nodes.Container.Application",
        "tosca.nodes.Root"};
    node.resources.cpus = 1;
    node.resources.mem_mb = 2048;
    node.resources.gpu.count = gpus;
    node.resources.gpu.model = model;
    node.image = "deephdc/deep-oc-generic";
    return node;
}

inline tosca::DeploymentSpec MarathonSpec(int gpus, const std::string& model = "", int count = 1) {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kMarathon;
    auto node = ContainerNode("app", "tosca.nodes.indigo.Container.Application.Docker.Marathon", gpus, model);
    node.count = count;
    spec.nodes.push_back(node);
    return spec;
}

inline tosca::DeploymentSpec HelmSpec(int gpus) {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kKubernetes;
    tosca::NodeSpec node;
    node.name = "chart";
    node.type = "tosca.nodes.indigo.Kubernetes.HelmChart";
    node.type_chain = {node.type, "tosca.nodes.Root"};
    node.resources.gpu.count = gpus;
    spec.nodes.push_back(node);
    return spec;
}

inline std::string FixturesDir() {
    return SharedDir() + "/fixtures";
}

}  // namespace orch::test
