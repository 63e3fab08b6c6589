#include "orchestrator/app/wiring_templates.hpp"

namespace orch::app {

Result<TemplateWiring> MakeTemplateServices(
    const ConfigTree& tree, http::Client& user_directed_http, const Clock& clock
) {
    auto tosca_options = tosca::EngineOptionsFromConfig(tree);
    if (!tosca_options) {
        return tosca_options.error();
    }
    tosca_options->http_client = &user_directed_http;
    tosca_options->clock = &clock;
    // POST /deployments parses to validate, the workflow's first step parses the stored text
    // again: the cache turns the second parse into a copy (and serves repeated templates).
    auto cache_options = workflow::TemplateCacheOptionsFromConfig(tree);
    if (!cache_options) {
        return cache_options.error();
    }
    TemplateWiring wiring;
    wiring.engine = std::make_unique<tosca::TemplateEngine>(*tosca_options);
    wiring.parser = std::make_unique<workflow::ToscaTemplateService>(*wiring.engine);
    wiring.templates = std::make_unique<workflow::CachingTemplateService>(*wiring.parser, *cache_options);
    return wiring;
}

}  // namespace orch::app
