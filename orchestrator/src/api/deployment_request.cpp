#include "orchestrator/api/deployment_request.hpp"

#include "orchestrator/api/input_checks.hpp"
#include "orchestrator/domain/iso_time.hpp"

#include <algorithm>
#include <string_view>

namespace orch::api {
namespace {

bool IsJsonMediaType(std::string type) {
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
    type = type.substr(0, type.find(';'));
    while (!type.empty() && type.back() == ' ') {
        type.pop_back();
    }
    return type == "application/json" ||
           (type.rfind("application/", 0) == 0 && type.size() > 5 && type.compare(type.size() - 5, 5, "+json") == 0);
}

Status ParseTimeouts(const Json& body, DeploymentRequest& out) {
    ORCH_ASSIGN_OR_RETURN(const auto timeout, ReadLenientInt(body, "timeoutMins"));
    ORCH_ASSIGN_OR_RETURN(const auto provider_timeout, ReadLenientInt(body, "providerTimeoutMins"));
    ORCH_ASSIGN_OR_RETURN(const auto retries, ReadLenientInt(body, "maxProvidersRetry"));
    ORCH_ASSIGN_OR_RETURN(const auto max_wait, ReadLenientInt(body, "maxWaitMins"));
    ORCH_ASSIGN_OR_RETURN(const auto tries, ReadLenientInt(body, "perProviderMaxRetries"));
    // The contract's messages below the minimum; our own caps (the original took any Java int)
    // are named in theirs, so a client knows what to send instead.
    constexpr std::int64_t kMaxMinutes = 1'000'000'000;
    constexpr std::int64_t kMaxRetries = 1000;
    const auto too_many_minutes = [](const char* what) {
        return Error::InvalidArgument(
            std::string(what) + " value, if provided, must be at most " + std::to_string(kMaxMinutes) + " minutes"
        );
    };
    if (timeout && *timeout < 1) {
        return Error::InvalidArgument("Overall timeout value, if provided, must be at least of 1 minute");
    }
    if (timeout && *timeout > kMaxMinutes) {
        return too_many_minutes("Overall timeout");
    }
    if (provider_timeout && *provider_timeout < 1) {
        return Error::InvalidArgument(
            "Provider timeout value, if provided, must be at least of 1 minute and equal or less than timeoutMins"
        );
    }
    if (provider_timeout && *provider_timeout > kMaxMinutes) {
        return too_many_minutes("Provider timeout");
    }
    if (timeout && provider_timeout && *provider_timeout > *timeout) {
        return Error::InvalidArgument("ProviderTimeout must be <= Timeout");
    }
    if (max_wait && (*max_wait < 1 || *max_wait > kMaxMinutes)) {
        return Error::InvalidArgument(
            "maxWaitMins value, if provided, must be at least 1 and at most " + std::to_string(kMaxMinutes) + " minutes"
        );
    }
    if (retries && *retries < 1) {
        return Error::InvalidArgument("maxProvidersRetry value, if provided, must be at least of 1");
    }
    if (retries && *retries > kMaxRetries) {
        return Error::InvalidArgument(
            "maxProvidersRetry value, if provided, must be at most " + std::to_string(kMaxRetries)
        );
    }
    // The 2025 rewrite's range for its per_provider_max_retries.
    constexpr std::int64_t kMaxTriesPerProvider = 10;
    if (tries && (*tries < 1 || *tries > kMaxTriesPerProvider)) {
        return Error::InvalidArgument(
            "perProviderMaxRetries value, if provided, must be at least 1 and at most " +
            std::to_string(kMaxTriesPerProvider)
        );
    }
    if (tries) {
        out.options.per_provider_max_retries = static_cast<int>(*tries);
    }
    if (timeout) {
        out.options.timeout_mins = static_cast<int>(*timeout);
    }
    if (provider_timeout) {
        out.options.provider_timeout_mins = static_cast<int>(*provider_timeout);
    }
    if (retries) {
        out.options.max_providers_retry = static_cast<int>(*retries);
    }
    if (max_wait) {
        out.options.max_wait_mins = static_cast<int>(*max_wait);
    }
    return Ok();
}

// The optional forced target: a provider (id or name) and/or a region, as the catalogue names them.
Status ParseTarget(const Json& body, DeploymentRequest& out) {
    constexpr std::size_t kMaxBytes = 255;
    for (const auto& [field, slot] :
         {std::pair{"targetProvider", &out.options.target_provider},
          std::pair{"targetRegion", &out.options.target_region}}) {
        const auto it = body.find(field);
        if (it == body.end() || it->is_null()) {
            continue;
        }
        if (!it->is_string() || it->get_ref<const std::string&>().empty() ||
            it->get_ref<const std::string&>().size() > kMaxBytes) {
            return Error::InvalidArgument(
                std::string(field) + " value, if provided, must be a non-empty string of at most " +
                std::to_string(kMaxBytes) + " bytes"
            );
        }
        *slot = it->get<std::string>();
    }
    return Ok();
}

}  // namespace

Result<std::optional<domain::TimePoint>> ParseExpiresAt(const Json& body) {
    const auto it = body.find("expiresAt");
    if (it == body.end() || it->is_null()) {
        return std::optional<domain::TimePoint>();
    }
    std::optional<domain::TimePoint> parsed;
    if (it->is_string()) {
        parsed = domain::ParseIsoTime(it->get_ref<const std::string&>());
    }
    if (!parsed) {
        return Error::InvalidArgument(
            "expiresAt value, if provided, must be an ISO-8601 time with a zone, such as 2030-01-31T12:00:00Z"
        );
    }
    return parsed;
}

Result<Json> ParseJsonBody(const server::Request& request) {
    const std::string type = request.Header("Content-Type");
    if (!IsJsonMediaType(type)) {
        return Error{ErrorCode::kUnsupportedMediaType, "Content type '" + type + "' not supported"};
    }
    if (request.body.empty()) {
        return Error::InvalidArgument("Required request body is missing");
    }
    ORCH_RETURN_IF_ERROR(CheckBodyEncoding(request.body));
    auto body = ParseJson(request.body);
    if (!body) {
        return Error::InvalidArgument("Could not read document: " + body.error().message);
    }
    ORCH_RETURN_IF_ERROR(CheckBodyStrings(*body));
    if (!body->is_object()) {
        return Error::InvalidArgument("Could not read document: the request body must be a JSON object");
    }
    return body;
}

Result<DeploymentRequest> ParseDeploymentRequest(const server::Request& request) {
    ORCH_ASSIGN_OR_RETURN(Json body, ParseJsonBody(request));
    DeploymentRequest out;
    ORCH_ASSIGN_OR_RETURN(const auto tmpl, ReadString(body, "template"));
    if (!tmpl) {
        return Error::InvalidArgument("A TOSCA template must be provided");
    }
    out.template_text = *tmpl;
    if (const auto it = body.find("parameters"); it != body.end()) {
        if (it->is_null()) {
            return Error::InvalidArgument("The parameters of the deployment, if provided, must not be null");
        }
        if (!it->is_object()) {
            return Error::InvalidArgument("Field 'parameters' must be a JSON object");
        }
        out.parameters = *it;
    }
    ORCH_ASSIGN_OR_RETURN(const auto callback, ReadString(body, "callback"));
    out.callback = callback.value_or("");  // checked once, by CheckCallbackUrl (the egress policy)
    ORCH_RETURN_IF_ERROR(ParseTimeouts(body, out));
    ORCH_RETURN_IF_ERROR(ParseTarget(body, out));
    ORCH_ASSIGN_OR_RETURN(const auto keep, ReadLenientBool(body, "keepLastAttempt"));
    out.options.keep_last_attempt = keep.value_or(false);
    ORCH_ASSIGN_OR_RETURN(out.options.self_healing, ReadLenientBool(body, "selfHealing"));
    ORCH_ASSIGN_OR_RETURN(out.user_group, ReadString(body, "userGroup"));
    ORCH_ASSIGN_OR_RETURN(out.expires_at, ParseExpiresAt(body));
    out.raw = std::move(body);
    return out;
}

}  // namespace orch::api
