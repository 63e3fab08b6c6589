#pragma once

// The INDIGO Kubernetes elastic cluster (tosca-types examples/kubernetes_elastic_cluster.yaml),
// cut to its shape: the ElasticCluster node, the front end, and the worker with min 1 / max 3
// hosted on the Compute whose count is the number of worker VMs (literal, as the corpus writes
// it), one to start with. Shared by the elastic and lifecycle chaos e2e tests.
namespace orch::test {

inline constexpr char kElasticClusterTemplate[] = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  node_templates:
    elastic_cluster_front_end:
      type: tosca.nodes.indigo.ElasticCluster
      properties:
        deployment_id: orchestrator_deployment_id
        iam_access_token: iam_access_token
        iam_clues_client_id: iam_clues_client_id
        iam_clues_client_secret: iam_clues_client_secret
      requirements:
        - lrms: lrms_front_end
        - wn: wn_node
    lrms_front_end:
      type: tosca.nodes.indigo.LRMS.FrontEnd.Kubernetes
      requirements:
        - host: lrms_server
    lrms_server:
      type: tosca.nodes.indigo.Compute
      capabilities:
        endpoint:
          properties:
            network_name: PUBLIC
        host:
          properties:
            num_cpus: 1
            mem_size: 1 GB
        os:
          properties:
            distribution: ubuntu
            version: 16.04
    wn_node:
      type: tosca.nodes.indigo.LRMS.WorkerNode.Kubernetes
      capabilities:
        wn:
          properties:
            max_instances: 3
            min_instances: 1
      properties:
        front_end_ip: { get_attribute: [ lrms_server, private_address, 0 ] }
      requirements:
        - host: lrms_wn
    lrms_wn:
      type: tosca.nodes.indigo.Compute
      capabilities:
        scalable:
          properties:
            count: 1
        host:
          properties:
            num_cpus: 1
            mem_size: 1 GB
        os:
          properties:
            distribution: ubuntu
            version: 16.04
)";

}  // namespace orch::test
