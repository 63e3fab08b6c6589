#include "cmdb/fedreg_source.hpp"

#include "common/log.hpp"

#include <optional>
#include <set>

namespace orch::cmdb {
namespace {

std::string Param(const char* name, const std::string& value) {
    return std::string(name) + "=" + http::UrlEncode(value);
}

// Empty values are left out: FR reads `region_name=` as a name that matches nothing.
std::string Query(std::initializer_list<std::pair<const char*, const std::string*>> params = {}) {
    std::string query = "with_conn=true";
    for (const auto& [name, value] : params) {
        if (!value->empty()) {
            query += "&" + Param(name, *value);
        }
    }
    return query;
}

std::string Minutes(std::chrono::system_clock::duration age) {
    return std::to_string(std::chrono::duration_cast<std::chrono::minutes>(age).count()) + " min ago";
}

}  // namespace

FedRegSource::FedRegSource(http::Client& http, FedRegOptions options, const Clock& clock)
    : http_(http), options_(std::move(options)), clock_(clock), groups_(options_.max_cached_groups) {
    while (!options_.url.empty() && options_.url.back() == '/') {
        options_.url.pop_back();
    }
}

Result<Json> FedRegSource::Get(const std::string& path, const std::string& query, const std::string& access_token) {
    http::ClientRequest request;
    // List routes end in '/': without it FR answers a 307 redirect.
    request.url = options_.url + path + "?" + query;
    request.timeout = options_.timeout;
    request.max_response_bytes = options_.max_response_bytes;
    request.headers.emplace_back("Accept", "application/json");
    if (!access_token.empty()) {
        request.headers.emplace_back("Authorization", "Bearer " + access_token);
    }
    auto response = http_.Send(request);
    if (!response) {
        return Error::Unavailable("the Federation Registry cannot be read (" + response.error().message + ")");
    }
    if (response->status == 401 || response->status == 403) {
        // 401 up to v1.1.0, 403 from v1.2.0: the user's token was not accepted.
        return Error::Unavailable(
            "the Federation Registry refused the user's token (HTTP " + std::to_string(response->status) + ") for " +
            path
        );
    }
    if (response->status != 200) {
        return Error::Unavailable(
            "the Federation Registry answered HTTP " + std::to_string(response->status) + " for " + path
        );
    }
    auto body = ParseJson(response->body);
    if (!body) {
        return Error::Unavailable("the Federation Registry's answer for " + path + " is not JSON");
    }
    return body;
}

std::optional<FedRegOffers> FedRegSource::ReadOffers(const std::string& access_token, std::vector<std::string>& notes) {
    auto flavors = Get("/flavors/", Query(), access_token);
    auto images = flavors ? Get("/images/", Query(), access_token) : Result<Json>(flavors.error());
    auto offers = images ? MapOffers(*flavors, *images) : Result<FedRegOffers>(std::move(images).error());
    if (!offers) {
        ORCH_LOG_WARN("Federation Registry flavors/images read failed", {{"error", offers.error().message}});
        notes.push_back(
            "Federation Registry: flavors and images not split by region (" + offers.error().message +
            "); each region offers every public one of the project"
        );
        return std::nullopt;
    }
    return std::move(offers).value();
}

void FedRegSource::ReadProjects(
    const FedRegGroup& group, const std::string& name, const std::string& access_token, std::vector<std::string>& notes
) {
    const auto started = clock_.now();
    // One listing per refresh: which compute service (so region) offers each public item.
    const auto offers = group.projects.empty() ? std::nullopt : ReadOffers(access_token, notes);
    std::set<std::string> touched;
    std::size_t read = 0;
    for (const auto& ref : group.projects) {
        if (read == options_.max_projects || clock_.now() - started > options_.deadline) {
            notes.push_back(
                "Federation Registry: " + std::to_string(group.projects.size() - read) + " projects of group " + name +
                " were not read (limit " + std::to_string(options_.max_projects) + " projects or the deadline)"
            );
            break;
        }
        ++read;
        const PieceKey key{ref.provider_uid, ref.region, name};
        auto body = Get(
            "/projects/",
            Query({{"provider_uid", &ref.provider_uid}, {"region_name", &ref.region}, {"user_group_uid", &group.uid}}),
            access_token
        );
        auto mapped = body ? MapProject(*body, name, ref.region, offers ? &*offers : nullptr)
                           : Result<Provider>(std::move(body).error());
        if (!mapped) {
            ORCH_LOG_WARN(
                "Federation Registry project read failed",
                {{"provider", ref.provider_uid}, {"error", mapped.error().message}}
            );
            const bool kept = pieces_.count(key) != 0;
            notes.push_back(mapped.error().message + (kept ? "; using the last copy" : ""));
            continue;
        }
        pieces_[key] = std::move(mapped).value();
        touched.insert(ref.provider_uid);
    }
    Rebuild(touched);
}

void FedRegSource::Rebuild(const std::set<std::string>& provider_uids) {
    if (provider_uids.empty()) {
        return;
    }
    for (const auto& uid : provider_uids) {
        Provider merged;
        std::map<std::string, std::size_t> by_service;
        for (auto it = pieces_.lower_bound({uid, "", ""}); it != pieces_.end() && std::get<0>(it->first) == uid; ++it) {
            merged.id = it->second.id;
            merged.name = it->second.name;
            for (const auto& service : it->second.services) {
                const auto [slot, added] = by_service.emplace(service.id, merged.services.size());
                if (added) {
                    merged.services.push_back(service);
                } else {
                    auto& tenants = merged.services[slot->second].tenants;
                    tenants.insert(tenants.end(), service.tenants.begin(), service.tenants.end());
                }
            }
        }
        providers_[uid] = std::make_shared<const Provider>(std::move(merged));
    }
    std::vector<std::shared_ptr<const Provider>> all;
    all.reserve(providers_.size());
    for (const auto& [uid, provider] : providers_) {
        all.push_back(provider);
    }
    catalogue_ = std::make_shared<const Catalogue>(std::move(all));
}

Result<std::shared_ptr<const SlaSet>> FedRegSource::Refresh(
    const std::string& group,
    const std::string& issuer,
    const std::string& access_token,
    std::vector<std::string>& notes
) {
    static const std::string kActive = "active";
    auto body =
        Get("/user_groups/",
            Query({{"name", &group}, {"idp_endpoint", &issuer}, {"provider_status", &kActive}}),
            access_token);
    if (!body) {
        return std::move(body).error();
    }
    auto mapped = MapUserGroups(*body, group, issuer);
    if (!mapped) {
        return std::move(mapped).error();
    }
    ReadProjects(*mapped, group, access_token, notes);
    return std::make_shared<const SlaSet>(std::move(mapped->slas));
}

Result<SlaView> FedRegSource::ForGroup(const std::string& group, const std::string& access_token) {
    return ForCaller(group, "", access_token);
}

Result<SlaView> FedRegSource::ForCaller(
    const std::string& group, const std::string& issuer, const std::string& access_token
) {
    const std::lock_guard lock(mutex_);
    const auto now = clock_.now();
    const auto key = std::make_pair(issuer, group);
    const auto* cached = groups_.Find(key);
    if (cached != nullptr && now - cached->fetched_at < options_.ttl) {
        return SlaView{cached->slas, {}};
    }
    SlaView view;
    auto fetched = Refresh(group, issuer, access_token, view.notes);
    if (fetched) {
        groups_.Remember(key, {*fetched, now});
        view.slas = std::move(fetched).value();
        return view;
    }
    if (fetched.error().code == ErrorCode::kNotFound) {
        groups_.Forget(key);
        return std::move(fetched).error();
    }
    ORCH_LOG_WARN("Federation Registry read failed", {{"group", group}, {"error", fetched.error().message}});
    if (cached != nullptr) {
        view.notes.push_back(
            "Federation Registry unavailable (" + fetched.error().message + "); using the SLAs read " +
            Minutes(now - cached->fetched_at)
        );
        view.slas = cached->slas;
        return view;
    }
    return Error::Unavailable("Error retrieving SLAs from the Federation Registry: " + fetched.error().message);
}

Result<CatalogueView> FedRegSource::Load(const std::vector<std::string>& provider_ids) {
    (void)provider_ids;  // every provider read so far: ForCaller has just read the caller's
    const std::lock_guard lock(mutex_);
    return CatalogueView{catalogue_, {}};
}

}  // namespace orch::cmdb
