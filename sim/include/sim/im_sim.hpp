#pragma once

#include "common/json.hpp"
#include "sim/fault_injector.hpp"
#include "sim/im_swagger.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"
#include "tosca/deployment_spec.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace orch::tosca {
class TemplateEngine;
}

namespace orch::sim {

/// One `key = value; ...` record of IM's auth header.
using ImAuthRecord = std::map<std::string, std::string>;

/// Splits the header into records (separator: the two characters `\n`) and entries; the
/// reason when a record is malformed (an entry without '=', a repeated key).
std::variant<std::vector<ImAuthRecord>, std::string> ParseImAuthorization(const std::string& header);

/// What IM itself checks of the records: one InfrastructureManager record (token, or
/// username + password), and cloud records each with id and type plus what that type needs
/// (OpenStack: host, username, password, a known auth_version, tenant for OIDC/password;
/// OpenNebula: host and token or username/password; EC2: username and password; EGI: host,
/// vo, token). `tokens` non-empty: the IM token must be one of them. The reason when not.
std::string CheckImAuthorization(const std::vector<ImAuthRecord>& records, const std::vector<std::string>& tokens);

/// The Infrastructure Manager's REST API (async create, state, VM info, outputs, contmsg,
/// start/stop, delete, and scaling: AddResources with a TOSCA document whose counts and
/// `removal_list` IM reconciles, DestroyVM with one id or a comma-separated list). Every request is checked against the
/// IM OpenAPI document and the auth records; the TOSCA of a create is parsed with our TOSCA engine (its VM nodes become
/// VMs, its outputs are evaluated against the simulated addresses). VMs go pending → running (timing.vm_boot) →
/// configured (timing.vm_configure); fault rules of kind `unconfigured` or `vm_failed` matching a create make that
/// infrastructure end so, with an Ansible-like error in its contextualisation log. Not thread-safe: SiteSim serialises
/// calls.
class ImSim {
   public:
    ImSim(const SimConfig& config, std::shared_ptr<const ImSwagger> swagger, const tosca::TemplateEngine* engine);

    /// `fault` is the rule the request hit, if any (only creates use it).
    SimResponse Handle(const SimRequest& request, double now, const FaultRule* fault);
    void Advance(double now);
    Json Objects() const;

    struct Vm {
        std::string id, node, state = "pending";
        int index = 0;
        double created = 0;
        std::string public_ip, private_ip;
        std::string instance_type, image;
        int gpus = 0;
    };
    struct Infrastructure {
        std::string id;
        std::string cloud_id, cloud_type, cloud_host;
        std::vector<Vm> vms;
        std::string ending = "configured";  ///< configured | unconfigured | failed
        std::string contmsg;
        Json outputs = Json::object();
        bool deleting = false;
        double deleted_at = 0;
        std::shared_ptr<const tosca::DeploymentSpec> spec;  ///< outputs are evaluated from it
        std::vector<std::string> software;                  ///< non-VM nodes, for the contextualisation log
        int next_vm = 0;                                    ///< IM never reuses a VM id within an infrastructure
    };

   private:
    SimResponse Create(
        const SimRequest& request, double now, const FaultRule* fault, const std::vector<ImAuthRecord>& records
    );
    SimResponse ForInfrastructure(const SimRequest& request, const std::string& op, Infrastructure& inf, double now);
    SimResponse AddResources(const SimRequest& request, Infrastructure& inf, double now);
    SimResponse DestroyVms(const std::string& ids, Infrastructure& inf, double now);
    std::string Aggregate(const Infrastructure& inf) const;
    void Finish(Infrastructure& inf);
    void AddVm(Infrastructure& inf, const tosca::NodeSpec& node, int index, double now);

    const SimConfig& config_;
    std::shared_ptr<const ImSwagger> swagger_;
    const tosca::TemplateEngine* engine_;
    std::map<std::string, Infrastructure> infrastructures_;
    int next_id_ = 1;
    int next_ip_ = 10;
};

}  // namespace orch::sim
