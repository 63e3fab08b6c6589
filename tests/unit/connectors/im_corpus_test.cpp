// Every template of the corpus the MANIFEST sends to IM (target=IM) that our engine accepts with
// its defaults goes through the IM connector against the simulated IM: the rewritten TOSCA must
// parse again there, reach `configured`, and come back with every output filled (no "Error
// evaluating output" text). The table of outcomes is printed; the figure is asserted.
#include "test_support/im_corpus.hpp"

#include "im_test_util.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;

using orch::test::HasErrorText;
using orch::test::SynthesizedInputs;

TEST_CASE(
    "IM corpus: target=IM templates our engine accepts deploy through the simulated IM", "[connectors][im][corpus]"
) {
    const auto templates = orch::test::ImCorpusTemplates(CorpusDir() + "/MANIFEST.md");
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
            table += "  not accepted (engine): " + path + ": " + check.ErrorMessage(path).substr(0, 500) + "\n";
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
