#pragma once

#include <optional>
#include <string>
#include <vector>

namespace orch::auth {

struct Principal;

/// Whose rows a query may touch. The one place where lists are scoped to the caller: it can only
/// be made from the caller (VisibleTo), every list and scan query of the stores requires one (the
/// query types have no default), and the stores alone turn it into SQL (store's AppendOwnerFilter). Narrowing never
/// widens: asking for an owner of another issuer than the caller's matches nothing, whoever asks (admins act within
/// their own issuer only).
class OwnerFilter {
   public:
    /// Every row `principal` may see: rows owned in their issuer and unowned rows (created while
    /// auth was disabled). The local user of `auth: disabled` sees every row.
    static OwnerFilter VisibleTo(const Principal& principal);

    /// Narrows to rows owned by subject@issuer (and no unowned rows).
    OwnerFilter& OwnedBy(const std::string& issuer, const std::string& subject);

    /// Whether a row owned by subject@issuer (both '' for an unowned row) is within this filter:
    /// the rule the stores write in SQL (AppendOwnerFilter), for rows already in memory — the
    /// event window every stream of a process shares (api::EventWindow). The store contract
    /// checks that the two agree.
    bool Admits(const std::string& owner_issuer, const std::string& owner_subject) const;

    /// For the stores. nullopt issuer: any issuer (only for the local user).
    const std::optional<std::string>& issuer() const { return issuer_; }
    bool include_unowned() const { return include_unowned_; }
    const std::optional<std::string>& subject() const { return subject_; }
    bool matches_nothing() const { return nothing_; }
    /// The groups whose aggregates (GET /quotas: counters, queue, reclaimed GPU-hours) the caller
    /// may read within issuer(): nullopt = every group (admins, the local user); otherwise the
    /// caller's own groups (`groups` and `wlcg.groups` claims), possibly none.
    const std::optional<std::vector<std::string>>& groups() const { return groups_; }

   private:
    OwnerFilter() = default;

    bool scoped_ = false;  ///< issuer_ is the caller's: OwnedBy may not leave it
    std::optional<std::string> issuer_;
    bool include_unowned_ = false;
    std::optional<std::string> subject_;
    bool nothing_ = false;
    std::optional<std::vector<std::string>> groups_;
};

}  // namespace orch::auth
