#include "ansible/ansible_facts.hpp"

#include "ansible/ansible_files.hpp"

#include <fstream>

namespace orch::connectors::ansible {
namespace {

constexpr std::size_t kMaxFactsFile = 16 * 1024;
constexpr std::size_t kMaxFactText = 256;
constexpr std::size_t kMaxGpus = 16;

// A fact's value as an attribute: scalars only, strings cut; anything else is dropped.
Json Bounded(const Json& value) {
    if (value.is_string()) {
        std::string text = value.get<std::string>();
        if (text.size() > kMaxFactText) {
            std::size_t cut = kMaxFactText;
            while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
                --cut;  // text[cut] continues a character: cut before that character starts
            }
            text.resize(cut);
        }
        return text;
    }
    return value.is_number() || value.is_boolean() ? value : Json();
}

Json Filtered(const Json& facts) {
    Json out = Json::object();
    for (const auto& name : FactNames()) {
        const auto it = facts.find(name);
        if (it == facts.end() || it->is_null()) {
            continue;
        }
        if (name == "gpu_models") {
            Json models = Json::array();
            for (const auto& model : it->is_array() ? *it : Json::array()) {
                if (models.size() < kMaxGpus && model.is_string()) {
                    models.push_back(Bounded(model));
                }
            }
            out[name] = std::move(models);
        } else if (Json value = Bounded(*it); !value.is_null()) {
            out[name] = std::move(value);
        }
    }
    return out;
}

}  // namespace

const std::vector<std::string>& FactNames() {
    static const std::vector<std::string> kNames = {
        "ansible_hostname",
        "ansible_fqdn",
        "ansible_distribution",
        "ansible_distribution_version",
        "ansible_distribution_release",
        "ansible_os_family",
        "ansible_system",
        "ansible_kernel",
        "ansible_architecture",
        "ansible_memtotal_mb",
        "ansible_processor_vcpus",
        "num_gpus",
        "gpu_model",
        "gpu_models",
    };
    return kNames;
}

std::string FactsPlaybookText(const std::string& facts_dir) {
    // One Jinja expression makes the whole object, so numbers stay numbers in to_json; a fact
    // setup did not find is null. nvidia-smi's absence (rc != 0) leaves the GPU facts null:
    // unknown, not zero.
    std::string record = "{";
    for (const auto& name : FactNames()) {
        if (name.rfind("ansible_", 0) == 0) {
            record += "'" + name + "': " + name + " | default(none), ";
        }
    }
    record +=
        "'num_gpus': (orch_gpus.stdout_lines | length) if orch_gpus.rc | default(1) == 0 else none, "
        "'gpu_model': (orch_gpus.stdout_lines | first | default(none)) if orch_gpus.rc | default(1) == 0 else none, "
        "'gpu_models': (orch_gpus.stdout_lines[:16]) if orch_gpus.rc | default(1) == 0 else none}";
    return "- name: \"orchestrator facts\"\n"
           "  hosts: all\n"
           "  gather_facts: false\n"
           "  tasks:\n"
           "    - name: gather facts\n"
           "      ansible.builtin.setup:\n"
           "        gather_subset: [\"!all\", \"!min\", \"distribution\", \"platform\", \"hardware\"]\n"
           "        gather_timeout: 20\n"
           "    - name: list GPUs\n"
           "      ansible.builtin.command: nvidia-smi --query-gpu=name --format=csv,noheader\n"
           "      register: orch_gpus\n"
           "      failed_when: false\n"
           "      changed_when: false\n"
           "    - name: keep facts\n"
           "      ansible.builtin.copy:\n"
           "        content: \"{{ " +
           record +
           " | to_json }}\"\n"
           "        dest: " +
           Json(facts_dir + "/{{ inventory_hostname }}.json").dump() +
           "\n"
           "        mode: \"0600\"\n"
           "      delegate_to: localhost\n";
}

std::vector<HostFacts> ReadFacts(const ContextPlan& plan, const std::string& facts_dir) {
    std::vector<HostFacts> out;
    for (const auto& host : plan.hosts) {
        std::ifstream in(facts_dir + "/" + HostName(host) + ".json", std::ios::binary);
        if (!in) {
            continue;
        }
        std::string text(kMaxFactsFile, '\0');
        in.read(text.data(), static_cast<std::streamsize>(kMaxFactsFile));
        text.resize(static_cast<std::size_t>(in.gcount()));
        auto parsed = ParseJson(text, 4);
        if (!parsed || !parsed->is_object()) {
            continue;
        }
        out.push_back({host.node, host.index, Filtered(*parsed)});
    }
    return out;
}

}  // namespace orch::connectors::ansible
