#include "slurm/slurm_rest.hpp"

#include <algorithm>

namespace orch::connectors::slurm {
namespace {

constexpr std::string_view kApi = "/slurm/v0.0.38";
constexpr std::size_t kMaxResponseBytes = 16u << 20;

// Slurm error numbers (slurm_errno.h, 22.05) the connector reacts to.
constexpr int kInvalidJobId = 2017;
constexpr int kAlreadyDone = 2021;
constexpr int kJobFinished = 2084;  // "Job has already finished" (update of an ended job)
constexpr int kUnspecified = -1;    // what slurmctld reports when it rejects the JWT

bool IsTransient(int error_number) {
    // 1000-1999: RPC/communication failures; 5000-5999: socket and protocol timeouts.
    return (error_number >= 1000 && error_number < 2000) || (error_number >= 5000 && error_number < 6000);
}

bool IsParseError(int error_number) {
    // 9000-9999: slurmrestd could not parse the request (a property of the wrong type, ...).
    return error_number >= 9000 && error_number < 10000;
}

}  // namespace

ConnectorResult<SlurmRest> SlurmRest::For(SiteClientFactory& clients, const SiteTarget& target, CallOptions options) {
    if (target.credentials.username.empty() || target.credentials.bearer_token.empty()) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "no Slurm credentials (user name and JWT) for site " + target.site_id,
        };
    }
    auto client = clients.ClientFor(target);
    if (auto* failure = std::get_if<Failure>(&client)) {
        return *failure;
    }
    std::string base = target.endpoint;
    while (!base.empty() && base.back() == '/') {
        base.pop_back();
    }
    // A busy controller's job list is large.
    options.max_response_bytes = std::max(options.max_response_bytes, kMaxResponseBytes);
    http::Headers auth = {
        {"X-SLURM-USER-NAME", target.credentials.username},
        {"X-SLURM-USER-TOKEN", target.credentials.bearer_token},
    };
    return SlurmRest(RestClient(
        std::move(std::get<std::shared_ptr<http::Client>>(client)),
        base + std::string(kApi),
        std::move(auth),
        options,
        "Slurm at " + target.site_id
    ));
}

ConnectorResult<SlurmRest::Reply> SlurmRest::Call(
    const std::string& method, const std::string& path, const Json* body
) {
    auto response = rest_.Call(method, path, body);
    if (auto* failure = std::get_if<Failure>(&response)) {
        return *failure;
    }
    auto& answered = std::get<RestResponse>(response);
    Reply reply;
    reply.status = answered.status;
    if (auto parsed = ParseJson(answered.body); parsed && parsed->is_object()) {
        reply.body = std::move(*parsed);
    }
    if (const auto errors = reply.body.find("errors"); errors != reply.body.end() && errors->is_array()) {
        for (const auto& entry : *errors) {
            if (!entry.is_object()) {
                continue;
            }
            // The published schema says error_number; the 22.05 submit path sends error_code.
            const Json number =
                entry.contains("error_number") ? entry["error_number"] : entry.value("error_code", Json());
            if (reply.error_number == 0 && number.is_number_integer()) {
                reply.error_number = number.get<int>();
            }
            std::string text = entry.value("error", std::string());
            const std::string description = entry.value("description", std::string());
            if (!description.empty() && description != text) {
                text += text.empty() ? description : " (" + description + ")";
            }
            if (!text.empty()) {
                reply.error += (reply.error.empty() ? "" : "; ") + text;
            }
        }
    }
    return reply;
}

Failure SlurmRest::Classify(const Reply& reply, const std::string& what) {
    std::string message = "Slurm " + what + " failed";
    if (!reply.error.empty()) {
        message += ": " + reply.error;
    } else {
        message += " with HTTP " + std::to_string(reply.status);
    }
    if (reply.status == 401 || reply.status == 403 || reply.error_number == kUnspecified) {
        return {FailureKind::kTryAnotherSite, message + " (check the Slurm user name and JWT for this site)"};
    }
    if (IsTransient(reply.error_number)) {
        return {FailureKind::kRetryHere, message};
    }
    if (IsParseError(reply.error_number)) {
        return {FailureKind::kUserError, message};
    }
    if (reply.error_number == 0 && (reply.status >= 500 || reply.status == 429)) {
        return {FailureKind::kRetryHere, message};
    }
    // Everything else is the site saying no: unknown partition or account, a GPU count or type no
    // node has ("Requested node configuration is not available"), a time limit over the maximum.
    return {FailureKind::kTryAnotherSite, message};
}

ConnectorResult<std::int64_t> SlurmRest::Submit(const Json& submission) {
    auto reply = Call("POST", "/job/submit", &submission);
    if (auto* failure = std::get_if<Failure>(&reply)) {
        return *failure;
    }
    const auto& r = std::get<Reply>(reply);
    const auto id = r.body.find("job_id");
    if (r.status != 200 || r.error_number != 0 || id == r.body.end() || !id->is_number_integer()) {
        return Classify(r, "job submission");
    }
    return id->get<std::int64_t>();
}

ConnectorResult<std::optional<Json>> SlurmRest::GetJob(std::int64_t job_id) {
    auto reply = Call("GET", "/job/" + std::to_string(job_id), nullptr);
    if (auto* failure = std::get_if<Failure>(&reply)) {
        return *failure;
    }
    const auto& r = std::get<Reply>(reply);
    if (r.error_number == kInvalidJobId) {
        return std::optional<Json>();
    }
    const auto jobs = r.body.find("jobs");
    if (r.status != 200 || r.error_number != 0 || jobs == r.body.end() || !jobs->is_array()) {
        return Classify(r, "job " + std::to_string(job_id) + " lookup");
    }
    for (const auto& job : *jobs) {
        if (job.is_object() && job.value("job_id", std::int64_t{-1}) == job_id) {
            return std::optional<Json>(job);
        }
    }
    return std::optional<Json>();
}

ConnectorResult<std::vector<Json>> SlurmRest::ListJobs() {
    auto reply = Call("GET", "/jobs", nullptr);
    if (auto* failure = std::get_if<Failure>(&reply)) {
        return *failure;
    }
    const auto& r = std::get<Reply>(reply);
    const auto jobs = r.body.find("jobs");
    if (r.status != 200 || r.error_number != 0 || jobs == r.body.end() || !jobs->is_array()) {
        return Classify(r, "job listing");
    }
    std::vector<Json> out;
    for (const auto& job : *jobs) {
        if (job.is_object()) {
            out.push_back(job);
        }
    }
    return out;
}

ConnectorResult<bool> SlurmRest::Cancel(std::int64_t job_id) {
    auto reply = Call("DELETE", "/job/" + std::to_string(job_id), nullptr);
    if (auto* failure = std::get_if<Failure>(&reply)) {
        return *failure;
    }
    const auto& r = std::get<Reply>(reply);
    if (r.error_number == kInvalidJobId || r.error_number == kAlreadyDone) {
        return false;
    }
    if (r.status != 200 || r.error_number != 0) {
        return Classify(r, "cancel of job " + std::to_string(job_id));
    }
    return true;
}

ConnectorResult<bool> SlurmRest::SetComment(std::int64_t job_id, const std::string& comment) {
    const Json body = {{"comment", comment}};
    auto reply = Call("POST", "/job/" + std::to_string(job_id), &body);
    if (auto* failure = std::get_if<Failure>(&reply)) {
        return *failure;
    }
    const auto& r = std::get<Reply>(reply);
    if (r.error_number == kInvalidJobId || r.error_number == kAlreadyDone || r.error_number == kJobFinished) {
        return false;
    }
    if (r.status != 200 || r.error_number != 0) {
        return Classify(r, "update of job " + std::to_string(job_id));
    }
    return true;
}

ConnectorResult<std::string> SlurmRest::Release() {
    auto reply = Call("GET", "/ping", nullptr);
    if (auto* failure = std::get_if<Failure>(&reply)) {
        return *failure;
    }
    const auto& r = std::get<Reply>(reply);
    if (r.status != 200 || r.error_number != 0) {
        return Classify(r, "ping");
    }
    const Json* slurm = nullptr;
    if (r.body.is_object() && r.body.contains("meta") && r.body["meta"].is_object()) {
        const Json& meta = r.body["meta"];
        slurm = meta.contains("Slurm") && meta["Slurm"].is_object() ? &meta["Slurm"] : nullptr;
    }
    if (slurm == nullptr) {
        return std::string(kUnknownSiteVersion);
    }
    if (slurm->contains("release") && (*slurm)["release"].is_string()) {
        return BoundedVersion((*slurm)["release"].get<std::string>());
    }
    const auto number = [&](const char* part) {
        const Json& version = slurm->contains("version") ? (*slurm)["version"] : Json();
        const auto it = version.is_object() ? version.find(part) : version.end();
        return version.is_object() && it != version.end() && it->is_number_integer() ? std::to_string(it->get<int>())
                                                                                     : std::string("?");
    };
    return BoundedVersion(number("major") + "." + number("minor") + "." + number("micro"));
}

}  // namespace orch::connectors::slurm
