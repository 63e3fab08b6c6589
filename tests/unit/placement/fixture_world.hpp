#pragma once

// The fixture world of ../shared/fixtures wired into a DefaultPlacer: the local CMDB file, the
// local SLAM file and the Zabbix-wrapper answers (served in-process by FixtureClient).

#include "spec_builders.hpp"

#include <cmdb/file_catalogue_source.hpp>
#include <cmdb/file_sla_source.hpp>
#include <monitoring/zabbix_feed.hpp>
#include <orchestrator/placement/default_placer.hpp>

#include <test_support/fixture_http_server.hpp>

#include <memory>

namespace orch::test {

inline const char* kZabbixGroups = "/monitoring/adapters/zabbix/zones/indigo/types/infrastructure/groups";
inline const char* kIamIssuer = "https://iam.paas.example.org/";

struct FixtureWorld {
    std::shared_ptr<FixtureRoutes> routes = std::make_shared<FixtureRoutes>();
    FixtureClient http{routes};
    std::unique_ptr<cmdb::FileCatalogueSource> catalogue;
    std::unique_ptr<cmdb::FileSlaSource> slas;
    std::unique_ptr<monitoring::Feed> feed;
    placement::InMemoryUsageSource usage;
    placement::InMemorySiteHistory history;
    ManualClock clock;
    std::unique_ptr<placement::DefaultPlacer> placer;

    explicit FixtureWorld(placement::PlacementOptions options = {}, bool with_monitoring = true) {
        routes->Mount(kZabbixGroups, FixturesDir() + "/monitoring/zabbix-wrapper");
        catalogue = std::move(cmdb::FileCatalogueSource::Open(FixturesDir() + "/cmdb/local/cmdb.json", clock)).value();
        slas = std::move(cmdb::FileSlaSource::Open(FixturesDir() + "/slam/local/slam.json")).value();
        if (with_monitoring) {
            monitoring::ZabbixOptions zabbix;
            zabbix.url = "http://monitoring.test";
            feed = std::make_unique<monitoring::ZabbixFeed>(http, zabbix, clock);
        } else {
            feed = std::make_unique<monitoring::NoFeed>();
        }
        placer = std::make_unique<placement::DefaultPlacer>(*catalogue, *slas, *feed, usage, history, options, clock);
    }

    placement::PlacementDecision Place(const tosca::DeploymentSpec& spec, const std::string& group = "deep-hdc") {
        placement::PlacementRequest request;
        request.spec = &spec;
        request.requester = {kIamIssuer, "alice", group, "token-not-for-logs"};
        auto decision = placer->Place(request);
        if (!decision) {
            throw std::runtime_error(decision.error().message);
        }
        return std::move(decision).value();
    }
};

inline placement::PlacementOptions IndigoOptions() {
    placement::PlacementOptions options;
    options.mode = placement::PlacementMode::kIndigo;
    return options;
}

inline const placement::SiteVerdict* FindVerdict(
    const placement::PlacementDecision& decision, const std::string& service_id
) {
    for (const auto& verdict : decision.verdicts) {
        if (verdict.service_id == service_id) {
            return &verdict;
        }
    }
    return nullptr;
}

inline std::string AllReasons(const placement::SiteVerdict& verdict) {
    std::string text;
    for (const auto& reason : verdict.reasons) {
        text += reason.Text() + "\n";
    }
    return text;
}

}  // namespace orch::test
