#include "sim/im_sim.hpp"

#include "sim/sim_clock.hpp"
#include "tosca/engine.hpp"
#include "tosca/outputs.hpp"

#include <algorithm>

namespace orch::sim {
namespace {

constexpr std::size_t kMaxVmsPerInfrastructure = 256;

SimResponse ImError(int status, const std::string& message) {
    return SimResponse::JsonBody(status, {{"message", message}, {"code", status}});
}

bool Truthy(const std::optional<std::string>& flag) {
    return flag && (*flag == "yes" || *flag == "true" || *flag == "1");
}

std::string Line(double now, const std::string& text) {
    return FormatIsoTime(now) + ": " + text + "\n";
}

/// The node a software node finally sits on (HostedOn chain), or the node itself.
const tosca::NodeSpec* HostOf(const tosca::DeploymentSpec& spec, const tosca::NodeSpec& node) {
    const tosca::NodeSpec* current = &node;
    for (int hops = 0; hops < 32 && current != nullptr && !current->host_node.empty(); ++hops) {
        current = spec.FindNode(current->host_node);
    }
    return current;
}

/// The non-VM nodes, named for the contextualisation log.
/// IM's outputs: as in the original, an output it cannot compute carries a text saying why as
/// its value (the orchestrator reads such texts as "no value").
Json ImOutputs(const tosca::DeploymentSpec& spec, const tosca::NodeAttributes& attributes) {
    tosca::OutputValues evaluated = tosca::EvaluateOutputs(spec, attributes);
    for (const auto& [name, why] : evaluated.notes) {
        evaluated.values[name] = "Error evaluating output " + name + ": " + why;
    }
    return std::move(evaluated.values);
}

std::vector<std::string> SoftwareOf(const tosca::DeploymentSpec& spec) {
    std::vector<std::string> out;
    for (const auto& node : spec.nodes) {
        if (!tosca::DerivesFrom(node, "tosca.nodes.Compute")) {
            out.push_back(node.name + " (" + node.type + ")");
        }
    }
    return out;
}

/// A VM id list of IM's DestroyVM path ("3" or "3,5"), split; empty when malformed.
std::vector<std::string> SplitIds(const std::string& ids) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= ids.size() && out.size() <= kMaxVmsPerInfrastructure) {
        const std::size_t comma = std::min(ids.find(',', start), ids.size());
        if (comma == start) {
            return {};
        }
        out.push_back(ids.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

std::vector<std::string> PathParts(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 1;
    while (start <= path.size()) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        parts.push_back(path.substr(start, slash - start));
        start = slash + 1;
    }
    return parts;
}

}  // namespace

void ImSim::AddVm(Infrastructure& inf, const tosca::NodeSpec& node, int index, double now) {
    Vm vm;
    vm.id = std::to_string(inf.next_vm++);
    vm.node = node.name;
    vm.index = index;
    vm.created = now;
    vm.instance_type = node.resources.instance_type;
    vm.image = node.resources.image;
    vm.gpus = node.resources.gpu.count;
    const int n = next_ip_++;
    vm.public_ip = "203.0.113." + std::to_string(n % 250 + 1);
    vm.private_ip = "10.0." + std::to_string((n / 250) % 250) + "." + std::to_string(n % 250 + 1);
    inf.vms.push_back(std::move(vm));
}

ImSim::ImSim(const SimConfig& config, std::shared_ptr<const ImSwagger> swagger, const tosca::TemplateEngine* engine)
    : config_(config), swagger_(std::move(swagger)), engine_(engine) {}

SimResponse ImSim::Handle(const SimRequest& request, double now, const FaultRule* fault) {
    if (!swagger_) {
        return ImError(500, "site-sim has no IM API description");
    }
    auto checked = swagger_->Check(request);
    if (auto* refusal = std::get_if<ImRefusal>(&checked)) {
        return ImError(refusal->status, refusal->message);
    }
    const std::string op = std::get<std::string>(checked);
    if (op == "GetVersion") {
        return SimResponse::JsonBody(200, {{"version", "1.19.0"}});
    }
    auto parsed = ParseImAuthorization(request.Header("Authorization"));
    if (auto* problem = std::get_if<std::string>(&parsed)) {
        return ImError(401, "Authentication error: " + *problem);
    }
    const auto& records = std::get<std::vector<ImAuthRecord>>(parsed);
    if (std::string problem = CheckImAuthorization(records, config_.tokens); !problem.empty()) {
        return ImError(401, "Authentication error: " + problem);
    }
    Advance(now);
    if (op == "CreateInfrastructure") {
        return Create(request, now, fault, records);
    }
    const auto parts = PathParts(request.path);
    if (parts.size() < 2) {
        return ImError(400, "IM operation " + op + " is not simulated");
    }
    const auto it = infrastructures_.find(parts[1]);
    if (it == infrastructures_.end() || (it->second.deleting && op != "GetInfrastructureState")) {
        return ImError(404, "Error Getting Inf. info: Invalid infrastructure ID or access not granted.");
    }
    return ForInfrastructure(request, op, it->second, now);
}

SimResponse ImSim::Create(
    const SimRequest& request, double now, const FaultRule* fault, const std::vector<ImAuthRecord>& records
) {
    if (request.Header("Content-Type").find("yaml") == std::string::npos) {
        return ImError(400, "site-sim simulates TOSCA (text/yaml) creates only, not RADL");
    }
    if (engine_ == nullptr) {
        return ImError(500, "site-sim has no TOSCA engine for IM");
    }
    tosca::TemplateRequest parse;
    parse.file_name = "im-create.yaml";
    parse.inputs = Json::object();  // inputs are resolved by the sender: nothing may be left open
    auto check = engine_->Check(request.body, parse);
    if (!check.valid() || !check.spec) {
        return ImError(400, "Error parsing TOSCA: " + check.ErrorMessage("template"));
    }
    Infrastructure inf;
    for (const auto& record : records) {
        if (record.at("type") != "InfrastructureManager") {
            inf.cloud_id = record.count("id") ? record.at("id") : "";
            inf.cloud_type = record.at("type");
            inf.cloud_host = record.count("host") ? record.at("host") : "";
            break;
        }
    }
    auto spec = std::make_shared<const tosca::DeploymentSpec>(std::move(*check.spec));
    inf.software = SoftwareOf(*spec);
    for (const auto& node : spec->nodes) {
        if (!tosca::DerivesFrom(node, "tosca.nodes.Compute")) {
            continue;
        }
        for (int i = 0; i < std::max(node.count, 0); ++i) {
            if (inf.vms.size() >= kMaxVmsPerInfrastructure) {
                return ImError(400, "site-sim: more than 256 VMs in one infrastructure");
            }
            AddVm(inf, node, i, now);
        }
    }
    if (Truthy(request.Query("dry_run"))) {
        Json compute = Json::array();
        for (const auto& vm : inf.vms) {
            compute.push_back({{"instance_type", vm.instance_type}, {"GPU", vm.gpus}});
        }
        return SimResponse::JsonBody(200, {{"compute", compute}});
    }
    if (infrastructures_.size() >= config_.max_objects) {
        return ImError(400, "site-sim: too many infrastructures");
    }
    inf.spec = std::move(spec);
    inf.id = "inf-" + std::to_string(next_id_++);
    if (fault != nullptr && fault->kind == FaultKind::kUnconfigured) {
        inf.ending = "unconfigured";
    } else if (fault != nullptr && fault->kind == FaultKind::kVmFailed) {
        inf.ending = "failed";
    }
    inf.contmsg = Line(
        now,
        "Infrastructure " + inf.id + " created on " + inf.cloud_type + " cloud '" + inf.cloud_id + "' (" +
            inf.cloud_host + ")"
    );
    const std::string id = inf.id;
    infrastructures_.emplace(id, std::move(inf));
    if (!Truthy(request.Query("async"))) {
        Advance(now);  // a synchronous create answers once the VMs exist (here: at once)
    }
    return SimResponse::JsonBody(200, {{"uri", "http://im.site-sim/infrastructures/" + id}});
}

std::string ImSim::Aggregate(const Infrastructure& inf) const {
    if (inf.deleting) {
        return "deleting";
    }
    // IM's order: any failed VM fails the infrastructure, then unconfigured, pending, running.
    for (const char* state : {"failed", "unconfigured", "pending", "running", "stopped", "off"}) {
        if (std::any_of(inf.vms.begin(), inf.vms.end(), [&](const Vm& vm) { return vm.state == state; })) {
            return state;
        }
    }
    return "configured";
}

void ImSim::Finish(Infrastructure& inf) {
    if (inf.ending == "configured") {
        // As IM evaluates get_attribute: a node's addresses are those of all its VMs, in order;
        // its other attributes (endpoint credential, tosca_id) those of its first VM.
        tosca::NodeAttributes attributes;
        for (const auto& vm : inf.vms) {
            Json& node = attributes[vm.node];
            if (!node.is_object()) {
                node = {
                    {"public_address", Json::array()},
                    {"private_address", Json::array()},
                    {"ip_address", vm.public_ip},
                    {"tosca_id", inf.id + "/" + vm.id},
                    {"tosca_name", vm.node},
                    // IM publishes the VM's SSH access on the endpoint capability.
                    {"endpoint",
                     {{"ip_address", vm.public_ip},
                      {"credential",
                       Json::array(
                           {{{"protocol", "ssh"},
                             {"user", "cloudadm"},
                             {"token_type", "private_key"},
                             {"token", "-----BEGIN RSA PRIVATE KEY-----\nsite-sim\n-----END RSA PRIVATE KEY-----"}}}
                       )}}}};
            }
            node["public_address"].push_back(vm.public_ip);
            node["private_address"].push_back(vm.private_ip);
        }
        // IM answers a software node's address attributes with those of the VM hosting it.
        for (const auto& node : inf.spec->nodes) {
            const tosca::NodeSpec* host = HostOf(*inf.spec, node);
            if (!attributes.contains(node.name) && host != nullptr && attributes.contains(host->name)) {
                attributes[node.name] = attributes[host->name];
            }
        }
        inf.outputs = ImOutputs(*inf.spec, attributes);
    }
}

void ImSim::Advance(double now) {
    const double boot = config_.timing.vm_boot;
    const double configure = config_.timing.vm_configure;
    for (auto it = infrastructures_.begin(); it != infrastructures_.end();) {
        Infrastructure& inf = it->second;
        if (inf.deleting) {
            it = now >= inf.deleted_at ? infrastructures_.erase(it) : std::next(it);
            continue;
        }
        const std::string before = Aggregate(inf);
        for (auto& vm : inf.vms) {
            if (vm.state == "pending" && now >= vm.created + boot) {
                vm.state = inf.ending == "failed" ? "failed" : "running";
                inf.contmsg += Line(
                    vm.created + boot,
                    vm.state == "failed" ? "VM " + vm.id + " (" + vm.node +
                                               "): Error launching the VM: "
                                               "No valid host was found. There are not enough hosts available."
                                         : "VM " + vm.id + " (" + vm.node + ") is running"
                );
            }
            if (vm.state == "running" && now >= vm.created + boot + configure) {
                vm.state = inf.ending == "unconfigured" ? "unconfigured" : "configured";
                for (const auto& software : inf.software) {
                    inf.contmsg += Line(vm.created + boot + configure, "Contextualizing " + software);
                }
                inf.contmsg += Line(
                    vm.created + boot + configure,
                    vm.state == "configured" ? "Contextualization of VM " + vm.id + " finished successfully"
                                             : "TASK [indigo-dc.site-sim : configure] fatal: [" + vm.node +
                                                   "]: FAILED! => {\"msg\": \"simulated Ansible failure\"}\n"
                                                   "ERROR executing task: contextualization of VM " +
                                                   vm.id + " failed"
                );
            }
        }
        if (before != Aggregate(inf) && Aggregate(inf) == "configured") {
            Finish(inf);
        }
        ++it;
    }
}

SimResponse ImSim::ForInfrastructure(
    const SimRequest& request, const std::string& op, Infrastructure& inf, double now
) {
    const auto parts = PathParts(request.path);
    if (op == "GetInfrastructureState") {
        Json vm_states = Json::object();  // IM answers an object by VM id (the swagger says array)
        for (const auto& vm : inf.vms) {
            vm_states[vm.id] = inf.deleting ? "deleting" : vm.state;
        }
        const std::string state = Aggregate(inf);
        if (!swagger_->IsState(state)) {
            return ImError(500, "site-sim would send a state outside IM's State enum: " + state);
        }
        return SimResponse::JsonBody(200, {{"state", {{"state", state}, {"vm_states", vm_states}}}});
    }
    if (op == "GetVMList") {
        Json list = Json::array();
        for (const auto& vm : inf.vms) {
            list.push_back({{"uri", "http://im.site-sim/infrastructures/" + inf.id + "/vms/" + vm.id}});
        }
        return SimResponse::JsonBody(200, {{"uri-list", list}});
    }
    if (op == "GetInfrastructureContmsg") {
        return SimResponse::JsonBody(200, {{"contmsg", inf.contmsg}});
    }
    if (op == "GetInfrastructureOutpus") {
        return SimResponse::JsonBody(200, {{"outputs", Aggregate(inf) == "configured" ? inf.outputs : Json::object()}});
    }
    if (op == "AddResources") {
        return AddResources(request, inf, now);
    }
    if (op == "DestroyVM" && parts.size() >= 4) {
        return DestroyVms(parts[3], inf, now);
    }
    if (op == "DestroyInfrastructure") {
        inf.deleting = true;
        inf.deleted_at = now + config_.timing.kill;
        return SimResponse::Text(200, "");
    }
    Vm* vm = nullptr;
    if (parts.size() >= 4 && parts[2] == "vms") {
        for (auto& candidate : inf.vms) {
            vm = candidate.id == parts[3] ? &candidate : vm;
        }
        if (vm == nullptr) {
            return ImError(404, "Error Getting VM info: Invalid VM ID");
        }
    }
    if (op == "GetVMInfo" && vm != nullptr) {
        Json radl = Json::array();
        radl.push_back({{"class", "network"}, {"id", "public_net"}, {"outbound", "yes"}});
        radl.push_back({{"class", "network"}, {"id", "private_net"}, {"outbound", "no"}});
        Json system = {
            {"class", "system"},
            {"id", vm->node},
            {"state", vm->state},
            {"instance_id", inf.id + "-" + vm->id},
            {"instance_type", vm->instance_type},
            {"disk.0.image.url", vm->image},
            {"provider.type", inf.cloud_type},
            {"provider.host", inf.cloud_host}};
        if (vm->state != "pending") {
            system["net_interface.0.connection"] = "public_net";
            system["net_interface.0.ip"] = vm->public_ip;
            system["net_interface.1.connection"] = "private_net";
            system["net_interface.1.ip"] = vm->private_ip;
        }
        if (vm->gpus > 0) {
            system["gpu.count"] = vm->gpus;
        }
        radl.push_back(system);
        return SimResponse::JsonBody(200, {{"radl", radl}});
    }
    if ((op == "StartVM" || op == "StopVM") && vm != nullptr) {
        if (vm->state == "configured" || vm->state == "stopped") {
            vm->state = op == "StartVM" ? "configured" : "stopped";
        }
        return SimResponse::Text(200, "");
    }
    return ImError(400, "IM operation " + op + " is not simulated");
}

// IM's AddResources with TOSCA: the document is the whole infrastructure again; per VM node,
// the VMs its removal_list names go, then the newest go or new ones come until the count is met.
SimResponse ImSim::AddResources(const SimRequest& request, Infrastructure& inf, double now) {
    if (request.Header("Content-Type").find("yaml") == std::string::npos) {
        return ImError(400, "site-sim simulates TOSCA (text/yaml) AddResources only, not RADL");
    }
    if (engine_ == nullptr) {
        return ImError(500, "site-sim has no TOSCA engine for IM");
    }
    tosca::TemplateRequest parse;
    parse.file_name = "im-add.yaml";
    parse.inputs = Json::object();
    auto check = engine_->Check(request.body, parse);
    if (!check.valid() || !check.spec) {
        return ImError(400, "Error parsing TOSCA: " + check.ErrorMessage("template"));
    }
    auto spec = std::make_shared<const tosca::DeploymentSpec>(std::move(*check.spec));
    std::vector<Vm> kept;
    std::vector<const tosca::NodeSpec*> to_grow;
    for (const auto& node : spec->nodes) {
        if (!tosca::DerivesFrom(node, "tosca.nodes.Compute")) {
            continue;
        }
        std::vector<Vm> mine;
        for (const auto& vm : inf.vms) {
            if (vm.node == node.name) {
                mine.push_back(vm);
            }
        }
        for (const auto& id : node.removal_list) {
            const auto it = std::find_if(mine.begin(), mine.end(), [&](const Vm& vm) { return vm.id == id; });
            if (it == mine.end()) {
                return ImError(400, "Invalid VM ID '" + id + "' in the removal_list of " + node.name);
            }
            mine.erase(it);
        }
        // IM removes the newest VMs of a lowered count (ids grow with creation).
        while (mine.size() > static_cast<std::size_t>(std::max(node.count, 0))) {
            mine.pop_back();
        }
        kept.insert(kept.end(), mine.begin(), mine.end());
        to_grow.push_back(&node);
    }
    for (const auto& vm : inf.vms) {  // VMs of nodes the document leaves out stay, as in IM
        if (spec->FindNode(vm.node) == nullptr) {
            kept.push_back(vm);
        }
    }
    const std::size_t before = inf.vms.size();
    inf.vms = std::move(kept);
    Json added = Json::array();
    for (const auto* node : to_grow) {
        int count = 0;
        int next_index = 0;
        for (const auto& vm : inf.vms) {
            if (vm.node == node->name) {
                ++count;
                next_index = std::max(next_index, vm.index + 1);
            }
        }
        for (; count < node->count; ++count) {
            if (inf.vms.size() >= kMaxVmsPerInfrastructure) {
                return ImError(400, "site-sim: more than 256 VMs in one infrastructure");
            }
            AddVm(inf, *node, next_index++, now);
            added.push_back({{"uri", "http://im.site-sim/infrastructures/" + inf.id + "/vms/" + inf.vms.back().id}});
        }
    }
    std::sort(inf.vms.begin(), inf.vms.end(), [](const Vm& a, const Vm& b) {
        return std::stoi(a.id) < std::stoi(b.id);
    });
    inf.spec = std::move(spec);
    inf.software = SoftwareOf(*inf.spec);
    inf.contmsg += Line(
        now,
        "AddResources: " + std::to_string(added.size()) + " VM(s) added, " +
            std::to_string(before + added.size() - inf.vms.size()) + " removed"
    );
    if (Aggregate(inf) == "configured") {
        Finish(inf);  // only removals: the outputs follow at once
    }
    return SimResponse::JsonBody(200, {{"uri-list", added}});
}

// IM's DestroyVM: one VM id or a comma-separated list (as the original sends a removal).
SimResponse ImSim::DestroyVms(const std::string& ids, Infrastructure& inf, double now) {
    const auto list = SplitIds(ids);
    if (list.empty() || list.size() > kMaxVmsPerInfrastructure) {
        return ImError(400, "Error Removing resources: invalid VM id list");
    }
    for (const auto& id : list) {
        if (std::none_of(inf.vms.begin(), inf.vms.end(), [&](const Vm& vm) { return vm.id == id; })) {
            return ImError(404, "Error Removing resources: Invalid VM ID " + id);
        }
    }
    std::erase_if(inf.vms, [&](const Vm& vm) { return std::find(list.begin(), list.end(), vm.id) != list.end(); });
    inf.contmsg += Line(now, "Removed VM(s) " + ids);
    if (Aggregate(inf) == "configured") {
        Finish(inf);
    }
    return SimResponse::Text(200, "");
}

Json ImSim::Objects() const {
    Json out = Json::array();
    for (const auto& [id, inf] : infrastructures_) {
        Json vms = Json::array();
        for (const auto& vm : inf.vms) {
            vms.push_back(
                {{"id", vm.id},
                 {"node", vm.node},
                 {"state", vm.state},
                 {"instance_type", vm.instance_type},
                 {"image", vm.image},
                 {"gpus", vm.gpus}}
            );
        }
        out.push_back(
            {{"id", id},
             {"cloud", inf.cloud_id},
             {"cloud_type", inf.cloud_type},
             {"state", Aggregate(inf)},
             {"vms", vms}}
        );
    }
    return out;
}

}  // namespace orch::sim
