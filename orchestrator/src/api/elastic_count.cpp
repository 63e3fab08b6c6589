#include "orchestrator/api/elastic_count.hpp"

#include <yaml-cpp/yaml.h>

namespace orch::api {

Result<CountEdit> WithNodeCount(const std::string& template_text, const std::string& node, int count) {
    CountEdit edit;
    try {
        // The template was accepted by the TOSCA engine when it was stored: a parse error here is
        // a template edited since, reported as such rather than thrown past the sweep.
        YAML::Node root = YAML::Load(template_text);
        YAML::Node target = root["topology_template"]["node_templates"][node];
        if (!target.IsMap()) {
            return Error::InvalidArgument("elastic: node " + node + " is not in the template");
        }
        YAML::Node count_node = target["capabilities"]["scalable"]["properties"]["count"];
        if (count_node.IsMap() && count_node["get_input"].IsScalar()) {
            edit.template_text = template_text;
            edit.parameters[count_node["get_input"].Scalar()] = count;
            return edit;
        }
        count_node = count;
        YAML::Emitter out;
        out << root;
        if (!out.good()) {
            return Error::Internal("elastic: cannot write the template: " + out.GetLastError());
        }
        edit.template_text = out.c_str();
        return edit;
    } catch (const YAML::Exception& e) {
        return Error::InvalidArgument("elastic: cannot read the stored template: " + std::string(e.what()));
    }
}

}  // namespace orch::api
