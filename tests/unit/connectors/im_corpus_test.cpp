// Every template of the corpus the MANIFEST sends to IM (target=IM) that our engine accepts with
// its defaults goes through the IM connector against the simulated IM: the rewritten TOSCA must
// parse again there, reach `configured`, and come back with every output filled (no "Error
// evaluating output" text). The table of outcomes is printed; the figure is asserted.
#include "im_test_util.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;

namespace {

/// (folder/path) of every target=IM template in the MANIFEST.
std::vector<std::string> ImTemplates() {
    std::ifstream in(CorpusDir() + "/MANIFEST.md");
    REQUIRE(in.good());
    std::vector<std::string> out;
    std::string line, folder;
    while (std::getline(in, line)) {
        const auto open = line.find("(`");
        const auto close = line.find("/`)");
        if (line.rfind("## ", 0) == 0 && open != std::string::npos && close != std::string::npos) {
            folder = line.substr(open + 2, close - open - 2);
            continue;
        }
        if (folder.empty() || line.rfind("| `", 0) != 0 || line.find("| template |") == std::string::npos ||
            line.find("target=IM") == std::string::npos) {
            continue;
        }
        const auto end = line.find('`', 3);
        out.push_back(folder + "/" + line.substr(3, end - 3));
    }
    return out;
}

/// A value of the input's type for every input without a default (the first valid_values entry,
/// the lower bound of in_range, else a plain value), as a user filling the form would give.
Json SynthesizedInputs(const std::string& text) {
    Json out = Json::object();
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception&) {
        return out;
    }
    const YAML::Node inputs = root["topology_template"]["inputs"];
    if (!inputs.IsMap()) {
        return out;
    }
    for (const auto& item : inputs) {
        const YAML::Node def = item.second;
        if (!def.IsMap() || def["default"]) {
            continue;
        }
        const std::string type = def["type"] ? def["type"].Scalar() : "string";
        Json value = "value";
        if (type == "integer") {
            value = 1;
        } else if (type == "float") {
            value = 1.0;
        } else if (type == "boolean") {
            value = true;
        } else if (type == "list") {
            value = Json::array();
        } else if (type == "map") {
            value = Json::object();
        } else if (type == "scalar-unit.size") {
            value = "1 GB";
        } else if (type == "version") {
            value = "1.0";
        }
        for (const auto& constraint : def["constraints"]) {
            if (constraint["valid_values"] && constraint["valid_values"].size() > 0) {
                const std::string first = constraint["valid_values"][0].Scalar();
                value = type == "integer" ? Json(std::stoll(first))
                        : type == "float" ? Json(std::stod(first))
                                          : Json(first);
            } else if (constraint["in_range"] && type == "integer") {
                value = std::stoll(constraint["in_range"][0].Scalar());
            }
        }
        out[item.first.Scalar()] = value;
    }
    return out;
}

bool HasErrorText(const Json& value) {
    if (value.is_string()) {
        const auto& text = value.get_ref<const std::string&>();
        return text.find("Error evaluating output") != std::string::npos;
    }
    if (value.is_structured()) {
        for (const auto& item : value) {
            if (HasErrorText(item)) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

TEST_CASE(
    "IM corpus: target=IM templates our engine accepts deploy through the simulated IM", "[connectors][im][corpus]"
) {
    const auto templates = ImTemplates();
    REQUIRE(templates.size() >= 50);
    auto site = ImSite();
    SimHttpClient client(*site);
    SharedClientFactory factory(client);
    ImConnector connector(factory, ImOptions{.endpoint = "http://im.sim"});
    int accepted = 0, complete = 0, index = 0;
    std::string table;
    for (const auto& path : templates) {
        const std::string text = ReadFile(CorpusDir() + "/" + path);
        orch::tosca::TemplateRequest parse;
        parse.file_name = path;
        parse.inputs = Json::object();
        auto check = Engine().Check(text, parse);
        std::string given;
        if (!check.valid()) {  // required inputs without defaults: fill them as a user would
            parse.inputs = SynthesizedInputs(text);
            given = " [inputs " + parse.inputs->dump() + "]";
            check = Engine().Check(text, parse);
        }
        if (!check.valid()) {
            table += "  not accepted (engine): " + path + ": " + check.ErrorMessage(path).substr(0, 200) + "\n";
            continue;
        }
        ++accepted;
        const orch::tosca::DeploymentSpec spec = *check.spec;
        DeployRequest request = Request("dep-" + std::to_string(++index), spec, ImTarget());
        request.template_text = text;
        request.placements = VmPlacements(spec);
        auto created = connector.Create(request);
        if (auto* failure = std::get_if<Failure>(&created)) {
            table += "  CREATE FAILED: " + path + ": " + failure->message.substr(0, 300) + "\n";
            continue;
        }
        const Handle handle = std::get<Handle>(created);
        const Observation obs = PollUntilSettled(connector, handle, spec, *site, 2.0, 20);
        std::set<std::string> missing;
        for (const auto& output : spec.outputs) {
            if (!obs.outputs.contains(output.name)) {
                missing.insert(output.name);
            }
        }
        if (obs.phase != Phase::kReady) {
            table += "  NOT READY: " + path + ": " + obs.reason + "\n";
        } else if (!missing.empty() || HasErrorText(obs.outputs)) {
            table += "  OUTPUTS: " + path + ": " + obs.outputs.dump().substr(0, 300) + "\n";
        } else {
            ++complete;
            table += "  ok: " + path + " (" + std::to_string(obs.instances.size()) + " VMs, " +
                     std::to_string(spec.outputs.size()) + " outputs)" + given + "\n";
        }
        (void)connector.Delete(handle, true);
    }
    UNSCOPED_INFO(
        "target=IM templates: " << templates.size() << ", accepted by the engine: " << accepted
                                << ", CREATE_COMPLETE with outputs: " << complete << "\n"
                                << table
    );
    WARN("IM corpus: " << complete << "/" << accepted << " complete\n" << table);
    CHECK(site->Rejections().empty());
    CHECK(complete * 100 >= accepted * 95);
}
