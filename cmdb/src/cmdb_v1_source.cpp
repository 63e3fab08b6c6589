#include "cmdb/cmdb_v1_source.hpp"

#include "cmdb/wire.hpp"
#include "common/log.hpp"

namespace orch::cmdb {
namespace {

std::string Ago(std::chrono::system_clock::duration age) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(age).count();
    if (seconds < 120) {
        return std::to_string(seconds) + " s ago";
    }
    return std::to_string(seconds / 60) + " min ago";
}

bool NeedsTenants(ServiceKind kind) {
    return kind == ServiceKind::kOpenStack || kind == ServiceKind::kCredentialIaas || kind == ServiceKind::kOtherIaas;
}

std::string Path(std::string_view type, const std::string& id, std::string_view relation = {}) {
    std::string path = "/" + std::string(type) + "/id/" + http::UrlEncode(id);
    if (!relation.empty()) {
        path += "/has_many/" + std::string(relation);
    }
    return path + "?include_docs=true";
}

template <typename T>
Result<std::vector<T>> ParseRows(
    const Json& body, std::string_view what, Result<T> (*parse)(const Json&, const std::string&)
) {
    auto rows = UnwrapRows(body, what);
    if (!rows) {
        return std::move(rows).error();
    }
    std::vector<T> out;
    for (const auto& [id, data] : *rows) {
        auto item = parse(data, id);
        if (!item) {
            return std::move(item).error();
        }
        out.push_back(std::move(item).value());
    }
    return out;
}

}  // namespace

CmdbV1Source::CmdbV1Source(http::Client& http, CmdbV1Options options, const Clock& clock)
    : http_(http), options_(std::move(options)), clock_(clock) {
    while (!options_.url.empty() && options_.url.back() == '/') {
        options_.url.pop_back();
    }
}

Result<Json> CmdbV1Source::GetJson(const std::string& path) {
    http::ClientRequest request;
    request.url = options_.url + path;
    request.timeout = options_.timeout;
    request.max_response_bytes = options_.max_response_bytes;
    request.headers.emplace_back("Accept", "application/json");
    auto response = http_.Send(request);
    if (!response) {
        return std::move(response).error();
    }
    if (response->status == 404) {
        return Error::NotFound("CMDB has no " + path.substr(0, path.find('?')));
    }
    if (response->status != 200) {
        return Error::Unavailable(
            "CMDB answered HTTP " + std::to_string(response->status) + " for " + path.substr(0, path.find('?'))
        );
    }
    return ParseJson(response->body);
}

Status CmdbV1Source::FetchTenants(Service& service) {
    auto body = GetJson(Path("service", service.id, "tenants"));
    if (!body) {
        return std::move(body).error();
    }
    auto tenants = ParseRows<Tenant>(*body, "tenant", &ParseTenant);
    if (!tenants) {
        return std::move(tenants).error();
    }
    for (auto& tenant : *tenants) {
        auto images = GetJson(Path("tenant", tenant.id, "images"));
        if (!images) {
            return std::move(images).error();
        }
        auto flavors = GetJson(Path("tenant", tenant.id, "flavors"));
        if (!flavors) {
            return std::move(flavors).error();
        }
        auto parsed_images = ParseRows<Image>(*images, "image", &ParseImage);
        auto parsed_flavors = ParseRows<Flavor>(*flavors, "flavor", &ParseFlavor);
        if (!parsed_images) {
            return std::move(parsed_images).error();
        }
        if (!parsed_flavors) {
            return std::move(parsed_flavors).error();
        }
        tenant.images = std::move(parsed_images).value();
        tenant.flavors = std::move(parsed_flavors).value();
    }
    service.tenants = std::move(tenants).value();
    return Ok();
}

Result<std::shared_ptr<const Provider>> CmdbV1Source::FetchProvider(const std::string& provider_id) {
    auto doc = GetJson(Path("provider", provider_id));
    if (!doc) {
        return Error{
            doc.error().code, "Error loading info for provider " + provider_id + " from CMDB: " + doc.error().message};
    }
    auto unwrapped = UnwrapDocument(*doc, "provider");
    if (!unwrapped) {
        return std::move(unwrapped).error();
    }
    auto provider = ParseProvider(unwrapped->second, unwrapped->first);
    if (!provider) {
        return std::move(provider).error();
    }
    auto services_body = GetJson(Path("provider", provider_id, "services"));
    if (!services_body) {
        return Error{
            services_body.error().code,
            "Error loading services list for provider " + provider_id + " from CMDB: " + services_body.error().message};
    }
    auto services = ParseRows<Service>(*services_body, "service", &ParseService);
    if (!services) {
        return std::move(services).error();
    }
    for (auto& service : *services) {
        if (!NeedsTenants(service.kind)) {
            continue;
        }
        if (auto status = FetchTenants(service); !status) {
            return Error{
                status.error().code,
                "Error loading projects of service " + service.id + " from CMDB: " + status.error().message};
        }
    }
    provider->services = std::move(services).value();
    return std::make_shared<const Provider>(std::move(provider).value());
}

Result<CatalogueView> CmdbV1Source::Load(const std::vector<std::string>& provider_ids) {
    if (provider_ids.size() > options_.max_providers) {
        return Error::ResourceExhausted(
            "placement asked the CMDB for " + std::to_string(provider_ids.size()) + " providers; the limit is " +
            std::to_string(options_.max_providers)
        );
    }
    const std::lock_guard lock(mutex_);
    const auto now = clock_.now();
    CatalogueView view;
    std::vector<std::shared_ptr<const Provider>> providers;
    std::string first_outage;
    for (const auto& id : provider_ids) {
        auto cached = cache_.find(id);
        if (cached != cache_.end() && now - cached->second.fetched_at < options_.ttl) {
            providers.push_back(cached->second.provider);
            continue;
        }
        auto fetched = FetchProvider(id);
        if (fetched) {
            cache_[id] = Entry{*fetched, now};
            providers.push_back(std::move(fetched).value());
            continue;
        }
        const Error& error = fetched.error();
        ORCH_LOG_WARN("CMDB read failed", {{"provider", id}, {"error", error.message}});
        if (cached != cache_.end()) {
            view.notes.push_back(
                "CMDB unreachable (" + error.message + "); using the copy of " + id + " from " +
                Ago(now - cached->second.fetched_at)
            );
            providers.push_back(cached->second.provider);
            continue;
        }
        view.notes.push_back(error.message);
        if (error.code != ErrorCode::kNotFound && first_outage.empty()) {
            first_outage = error.message;
        }
    }
    if (providers.empty() && !first_outage.empty()) {
        return Error::Unavailable("Error retrieving info from CMDB: " + first_outage);
    }
    view.catalogue = std::make_shared<const Catalogue>(std::move(providers));
    return view;
}

}  // namespace orch::cmdb
