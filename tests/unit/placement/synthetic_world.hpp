#pragma once

// A small hand-made world for filter and ranking tests: one OpenStack site, three Marathon
// sites with different GPUs, a Slurm site; a group "g" with SLAs for all of them.

#include "spec_builders.hpp"

#include <cmdb/file_catalogue_source.hpp>
#include <cmdb/file_sla_source.hpp>
#include <monitoring/feed.hpp>
#include <orchestrator/placement/default_placer.hpp>

#include <memory>

namespace orch::test {

inline const char* kSyntheticCatalogue = R"(
providers:
  - id: SITE-A
    name: site-a
    services:
      A-nova:
        service_type: org.openstack.nova
        endpoint: https://keystone.a.test:5000/v3
        type: compute
        region: r1
        supported_idps: [{name: iam-a, issuer: "https://iam.test/"}]
        idp_protocol: openid
        public_ip_assignable: false
        volume_types: [{name: ssd, qos: fast}]
  - id: SITE-B
    name: site-b
    services:
      B-marathon:
        service_type: eu.indigo-datacloud.marathon
        endpoint: https://b.test/marathon
        type: compute
        supported_idps: [{name: iam, issuer: "https://iam.test/"}]
        service_parent_id: B-mesos
        properties: {gpu_support: true, gpu_attribute: gpu_model}
      B-mesos:
        service_type: eu.indigo-datacloud.mesos
        endpoint: https://b.test/mesos
        type: compute
  - id: SITE-C
    name: site-c
    services:
      C-marathon:
        service_type: eu.indigo-datacloud.marathon
        endpoint: https://c.test/marathon
        type: compute
        supported_idps: [{name: iam, issuer: "https://iam.test/"}]
        properties: {gpu_support: true, gpu_model: "Tesla V100-PCIE-32GB", num_gpus: 4}
  - id: SITE-D
    name: site-d
    services:
      D-marathon:
        service_type: eu.indigo-datacloud.marathon
        endpoint: https://d.test/marathon
        type: compute
        supported_idps: [{name: iam, issuer: "https://iam.test/"}]
        properties: {gpu_support: false}
  - id: SITE-E
    name: site-e
    services:
      E-slurm:
        service_type: org.schedmd.slurm
        endpoint: https://slurm.e.test/slurm/v0.0.38
        type: compute
        iam_enabled: false
        properties: {gpu_support: true, gpu_model: A100, num_gpus: 8, partition: gpu, account: research}
tenants:
  t-a:
    tenant: {tenant_id: p-a, tenant_name: proj-a, service: A-nova, iam_organisation: g, private_network_name: net-a}
    flavors:
      - {flavor_id: f1, flavor_name: small, num_vcpus: 2, ram: 4096, disk: 20, num_gpus: 0}
      - {flavor_id: f2, flavor_name: v100x1, num_vcpus: 8, ram: 32768, disk: 80, num_gpus: 1, gpu_vendor: nvidia, gpu_model: "Tesla V100-PCIE-32GB"}
      - {flavor_id: f3, flavor_name: v100x2, num_vcpus: 16, ram: 65536, disk: 80, num_gpus: 2, gpu_vendor: nvidia, gpu_model: "Tesla V100-PCIE-32GB"}
      - {flavor_id: f4, flavor_name: t4x1, num_vcpus: 4, ram: 16384, disk: 40, num_gpus: 1, gpu_vendor: nvidia, gpu_model: "Tesla T4", gpu_memory: 16384}
    images:
      - {image_id: i1, image_name: "ubuntu:20.04", type: linux, distribution: ubuntu, version: "20.04"}
      - {image_id: i2, image_name: "ubuntu-cuda", type: linux, distribution: ubuntu, version: "22.04", gpu_driver: true, gpu_driver_version: "535.104", cuda_support: true, cuda_version: "12.2"}
)";

/// SLAs of group "g": weights A 1.0, B 0.5, C 0.5, D 0.5, E 0.5; C has a per-service GPU quota of 2.
inline Json SyntheticSlas() {
    auto sla =
        [](const std::string& id, const std::string& provider, const std::string& service, Json targets = Json::array()
        ) {
            return Json{
                {"id", id},
                {"customer", "g"},
                {"provider", provider},
                {"services", {{{"type", "computing"}, {"service_id", service}, {"targets", targets}}}}};
        };
    auto priority = [](const std::string& sla_id, const std::string& service, double weight) {
        return Json{{"sla_id", sla_id}, {"service_id", service}, {"weight", weight}};
    };
    Json c_targets = Json::array({{{"type", "num_gpus"}, {"restrictions", {{"total_limit", 2}, {"user_limit", 2}}}}});
    return {
        {"g",
         {
             {"preferences",
              {{{"customer", "g"},
                {"preferences",
                 {{{"service_type", "compute"},
                   {"priority",
                    {priority("sa", "A-nova", 1.0),
                     priority("sb", "B-marathon", 0.5),
                     priority("sc", "C-marathon", 0.5),
                     priority("sd", "D-marathon", 0.5),
                     priority("se", "E-slurm", 0.5)}}}}}}}},
             {"sla",
              {sla("sa", "SITE-A", "A-nova"),
               sla("sb", "SITE-B", "B-marathon"),
               sla("sc", "SITE-C", "C-marathon", c_targets),
               sla("sd", "SITE-D", "D-marathon"),
               sla("se", "SITE-E", "E-slurm")}},
         }}};
}

/// Live monitoring: site-b has 4 free T4s, site-c 1 free V100 and is slow, site-e is down.
inline std::shared_ptr<monitoring::Snapshot> SyntheticSnapshot() {
    auto snapshot = std::make_shared<monitoring::Snapshot>();
    auto& b = snapshot->providers["SITE-B"];
    b.provider_id = "SITE-B";
    b.services.push_back({});
    b.services.back().service_id = "B-mesos";
    b.services.back().capacity.free_gpus_by_model = {{"Tesla T4", 4}};
    b.services.back().capacity.free_cpus = 64;
    b.services.back().capacity.free_mem_mb = 262144;
    auto& c = snapshot->providers["SITE-C"];
    c.provider_id = "SITE-C";
    c.services.push_back({});
    c.services.back().service_id = "C-marathon";
    c.services.back().up = true;
    c.services.back().response_ms = 4000;
    c.capacity.free_gpus = 1;
    c.capacity.gpus_by_model = {{"Tesla V100-PCIE-32GB", 4}};
    auto& e = snapshot->providers["SITE-E"];
    e.provider_id = "SITE-E";
    e.up = false;
    return snapshot;
}

struct SyntheticWorld {
    std::unique_ptr<cmdb::StaticCatalogueSource> catalogue;
    std::unique_ptr<cmdb::FileSlaSource> slas;
    std::shared_ptr<monitoring::Snapshot> snapshot = SyntheticSnapshot();
    std::unique_ptr<monitoring::Feed> feed;
    placement::InMemoryUsageSource usage;
    placement::InMemorySiteHistory history;
    ManualClock clock{std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 50))};
    std::unique_ptr<placement::DefaultPlacer> placer;

    explicit SyntheticWorld(placement::PlacementOptions options = {}, bool monitored = true) {
        catalogue = std::make_unique<cmdb::StaticCatalogueSource>(std::make_shared<const cmdb::Catalogue>(
            cmdb::ParseLocalCatalogueText(kSyntheticCatalogue, "synthetic").value()
        ));
        slas = std::move(cmdb::FileSlaSource::FromJson(SyntheticSlas(), "synthetic")).value();
        if (monitored) {
            feed = std::make_unique<monitoring::StaticFeed>(snapshot);
        } else {
            feed = std::make_unique<monitoring::NoFeed>();
        }
        placer = std::make_unique<placement::DefaultPlacer>(*catalogue, *slas, *feed, usage, history, options, clock);
    }

    placement::PlacementDecision Place(const tosca::DeploymentSpec& spec, const std::string& subject = "alice") {
        placement::PlacementRequest request;
        request.spec = &spec;
        request.requester = {"https://iam.test/", subject, "g", ""};
        auto decision = placer->Place(request);
        if (!decision) {
            throw std::runtime_error(decision.error().message);
        }
        return std::move(decision).value();
    }
};

}  // namespace orch::test
