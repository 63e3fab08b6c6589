#include "test_support/gpu_marathon_site.hpp"

namespace orch::test {

std::string GpuMarathonCatalogue(const std::string& marathon, const GpuSiteSize& size) {
    return "providers:\n"
           "  - id: SIM-A\n    name: sim-a\n    services:\n"
           "      SIM-A_mesos:\n        service_type: eu.indigo-datacloud.mesos\n        endpoint: " +
           marathon +
           "\n        type: compute\n        iam_enabled: false\n"
           "        properties: {gpu_support: true, gpu_vendor: nvidia, num_gpus: " +
           std::to_string(size.gpus) + ", num_cpus: " + std::to_string(size.cpus) +
           ", mem_total: " + std::to_string(size.mem_mb) +
           "}\n"
           "      SIM-A_marathon:\n        service_type: eu.indigo-datacloud.marathon\n        endpoint: " +
           marathon +
           "\n        type: compute\n        iam_enabled: false\n        service_parent_id: SIM-A_mesos\n"
           "        properties: {gpu_support: true, gpu_vendor: nvidia, load_balancer_ips: [127.0.0.1]}\n";
}

std::string DemoGpuSla(int gpu_limit) {
    return "demo:\n"
           "  preferences:\n"
           "    - customer: demo\n"
           "      preferences:\n"
           "        - service_type: compute\n"
           "          priority: [{sla_id: sla-a, service_id: SIM-A_marathon, weight: 1.0}]\n"
           "  sla:\n"
           "    - {id: sla-a, customer: demo, provider: SIM-A, services: [{type: computing, service_id: "
           "SIM-A_marathon, targets: [{type: num_gpus, restrictions: {total_limit: " +
           std::to_string(gpu_limit) + "}}]}]}\n";
}

std::string GpuMarathonApp(int gpus) {
    return R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  node_templates:
    app:
      type: tosca.nodes.indigo.Container.Application.Docker.Marathon
      artifacts:
        image:
          file: tensorflow/tensorflow:latest-gpu
          type: tosca.artifacts.Deployment.Image.Container.Docker
      requirements:
        - host: Docker
    Docker:
      type: tosca.nodes.indigo.Container.Runtime.Docker
      capabilities:
        host:
          properties:
            num_cpus: 1.0
            mem_size: 1 GB
            num_gpus: )" +
           std::to_string(gpus) + "\n";
}

}  // namespace orch::test
