#include "orchestrator/auth/authorization.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;

namespace {

const std::string kIam = "https://iam.example.org/";

Principal User(
    std::string subject, std::set<std::string, std::less<>> scopes, std::vector<std::string> groups = {"users"}
) {
    Principal p;
    p.issuer = kIam;
    p.subject = std::move(subject);
    p.scopes = std::move(scopes);
    p.groups = std::move(groups);
    return p;
}

template <typename T>
std::string Denied(const Result<T>& status, ErrorCode code = ErrorCode::kPermissionDenied) {
    REQUIRE_FALSE(status);
    CHECK(status.error().code == code);
    return status.error().message;
}

}  // namespace

TEST_CASE("scopes: openid and profile for everything, offline_access or fts:submit-transfer for writes") {
    const ScopePolicy policy;
    CHECK(RequireScopes(User("a", {"openid", "profile"}), Access::kRead, policy));
    CHECK(
        Denied(RequireScopes(User("a", {"openid"}), Access::kRead, policy)) ==
        "Insufficient scope for this resource, scope=\"profile\""
    );
    CHECK(
        Denied(RequireScopes(User("a", {}), Access::kRead, policy)) ==
        "Insufficient scope for this resource, scope=\"openid profile\""
    );
    CHECK(
        Denied(RequireScopes(User("a", {"openid", "profile"}), Access::kWrite, policy)) ==
        "Insufficient scope for this resource, scope=\"offline_access fts:submit-transfer\""
    );
    CHECK(RequireScopes(User("a", {"openid", "profile", "fts:submit-transfer"}), Access::kWrite, policy));
    CHECK(RequireScopes(User("a", {"openid", "profile", "offline_access"}), Access::kWrite, policy));
}

TEST_CASE("scopes: actions need offline_access only") {
    const ScopePolicy policy;
    CHECK(
        Denied(RequireScopes(User("a", {"openid", "profile", "fts:submit-transfer"}), Access::kAction, policy)) ==
        "Insufficient scope for this resource, scope=\"offline_access\""
    );
    CHECK(RequireScopes(User("a", {"openid", "profile", "offline_access"}), Access::kAction, policy));
}

TEST_CASE("scopes: configurable policy, and the local user passes") {
    ScopePolicy policy;
    policy.every_request = {"orchestrator:read"};
    policy.write_any_of = {"orchestrator:write"};
    CHECK(RequireScopes(User("a", {"orchestrator:read", "orchestrator:write"}), Access::kWrite, policy));
    CHECK_FALSE(RequireScopes(User("a", {"openid", "profile", "offline_access"}), Access::kWrite, policy));
    CHECK(RequireScopes(LocalPrincipal(), Access::kAction, ScopePolicy{}));
}

TEST_CASE("userGroup (§5.4): groups claim") {
    CHECK(CheckUserGroup(User("a", {}, {"users", "physics"}), std::string("physics")));
    CHECK(
        Denied(CheckUserGroup(User("a", {}, {"users"}), std::string("physics"))) ==
        "The group physics is not in the user's authorized groups"
    );
    Principal absent = User("a", {});
    absent.groups.reset();
    for (const Principal& none : {absent, User("a", {}, {})}) {
        CHECK(
            Denied(CheckUserGroup(none, std::string("physics"))) ==
            "User's token does not contain a group claim or it is empty"
        );
    }
    // Absent userGroup on create: the original prints "null".
    CHECK(
        Denied(CheckUserGroup(User("a", {}, {"users"}), std::nullopt)) ==
        "The group null is not in the user's authorized groups"
    );
}

TEST_CASE("userGroup (§5.4): wlcg.groups carries /paths and both claims must agree") {
    Principal wlcg = User("a", {});
    wlcg.groups.reset();  // no `groups` claim at all
    wlcg.wlcg_groups = {"/users", "/physics"};
    CHECK(CheckUserGroup(wlcg, std::string("physics")));
    CHECK(
        Denied(CheckUserGroup(wlcg, std::string("chemistry"))) ==
        "The group chemistry is not in the user's authorized groups"
    );
    Principal both = User("a", {}, {"physics"});
    both.wlcg_groups = {"/users"};
    CHECK(
        Denied(CheckUserGroup(both, std::string("physics"))) ==
        "The group physics is not in the user's authorized groups"
    );
    CHECK(CheckUserGroup(LocalPrincipal(), std::nullopt));
}

TEST_CASE("userGroup (§5.4): a present but empty claim must contain the group too (v4.0.1)") {
    Principal empty_groups = User("a", {}, {});
    empty_groups.wlcg_groups = {"/physics"};
    CHECK(
        Denied(CheckUserGroup(empty_groups, std::string("physics"))) ==
        "The group physics is not in the user's authorized groups"
    );
    Principal empty_wlcg = User("a", {}, {"physics"});
    empty_wlcg.wlcg_groups = std::vector<std::string>();
    CHECK(
        Denied(CheckUserGroup(empty_wlcg, std::string("physics"))) ==
        "The group physics is not in the user's authorized groups"
    );
    Principal both_empty = User("a", {}, {});
    both_empty.wlcg_groups = std::vector<std::string>();
    CHECK(
        Denied(CheckUserGroup(both_empty, std::string("physics"))) ==
        "User's token does not contain a group claim or it is empty"
    );
}

TEST_CASE("visibility is by issuer, unowned rows are visible") {
    const Principal alice = User("alice", {});
    CHECK(IsVisibleTo(alice, Owner{kIam, "bob"}));
    CHECK_FALSE(IsVisibleTo(alice, Owner{"https://other-iam.example.org/", "alice"}));
    CHECK(IsVisibleTo(alice, std::nullopt));
    CHECK(IsVisibleTo(LocalPrincipal(), Owner{"https://other-iam.example.org/", "x"}));
}

TEST_CASE("ownership: owner only, admins of the same issuer when allowed") {
    const Principal alice = User("alice", {});
    Principal admin = User("root", {});
    admin.admin = true;
    const std::string kOnlyOwner = "Only the owner of the deployment can perform this operation";
    CHECK(CheckOwnership(alice, Owner{kIam, "alice"}, true));
    CHECK(Denied(CheckOwnership(alice, Owner{kIam, "bob"}, true)) == kOnlyOwner);
    CHECK(
        Denied(CheckOwnership(alice, Owner{"https://other/", "alice"}, true)) == kOnlyOwner
    );  // same sub, other issuer
    CHECK(CheckOwnership(admin, Owner{kIam, "bob"}, true));
    CHECK(Denied(CheckOwnership(admin, Owner{kIam, "bob"}, false)) == kOnlyOwner);  // v4.0.1 behaviour
    CHECK(Denied(CheckOwnership(admin, Owner{"https://other/", "bob"}, true)) == kOnlyOwner);
    CHECK(Denied(CheckOwnership(alice, std::nullopt, true)) == kOnlyOwner);
    CHECK(CheckOwnership(admin, std::nullopt, true));
}

TEST_CASE("list filter: no createdBy means own rows, or all of the issuer for admins") {
    const Principal alice = User("alice", {});
    auto own = ResolveListFilter(alice, "", std::nullopt, ListKind::kDeployments);
    REQUIRE(own);
    CHECK(own->owner.subject() == std::optional<std::string>("alice"));
    CHECK(own->owner.issuer() == std::optional<std::string>(kIam));
    CHECK_FALSE(own->owner.include_unowned());
    CHECK_FALSE(own->owner.matches_nothing());

    Principal admin = User("root", {});
    admin.admin = true;
    auto all = ResolveListFilter(admin, "", std::nullopt, ListKind::kDeployments);
    REQUIRE(all);
    CHECK_FALSE(all->owner.subject());
    CHECK(all->owner.issuer() == std::optional<std::string>(kIam));
    CHECK(all->owner.include_unowned());

    auto me = ResolveListFilter(admin, "me", std::nullopt, ListKind::kDeployments);
    REQUIRE(me);
    CHECK(me->owner.subject() == std::optional<std::string>("root"));
}

TEST_CASE("list filter: createdBy=sub@iss rules (§3.4)") {
    const Principal alice = User("alice", {});
    CHECK(
        Denied(ResolveListFilter(alice, "bob", std::nullopt, ListKind::kDeployments), ErrorCode::kInvalidArgument) ==
        "Value bob for param createdBy is illegal"
    );
    CHECK(
        Denied(ResolveListFilter(alice, "a@b@c", std::nullopt, ListKind::kDeployments), ErrorCode::kInvalidArgument) ==
        "Value a@b@c for param createdBy is illegal"
    );
    CHECK(
        Denied(ResolveListFilter(alice, "@x", std::nullopt, ListKind::kDeployments), ErrorCode::kInvalidArgument) ==
        "Value @x for param createdBy is illegal"
    );
    CHECK(
        Denied(ResolveListFilter(alice, "bob@" + kIam, std::nullopt, ListKind::kDeployments)) ==
        "Only admin can retrieve deployments for bob@" + kIam
    );
    auto self = ResolveListFilter(alice, "alice@" + kIam, std::nullopt, ListKind::kDeployments);
    REQUIRE(self);
    CHECK(self->owner.subject() == std::optional<std::string>("alice"));
    CHECK_FALSE(self->owner.matches_nothing());
    Principal admin = User("root", {});
    admin.admin = true;
    auto other = ResolveListFilter(admin, "bob@https://other/", std::nullopt, ListKind::kDeployments);
    REQUIRE(other);
    CHECK(other->owner.matches_nothing());  // admins act within their own issuer only
    CHECK(other->owner.issuer() == std::optional<std::string>(kIam));
}

TEST_CASE("list filter: an owner of another issuer lists nothing, even with the caller's own subject") {
    // The same subject at two issuers is two people: equal subjects must not cross issuers.
    const Principal alice = User("alice", {});
    auto twin = ResolveListFilter(alice, "alice@https://other/", std::nullopt, ListKind::kDeployments);
    REQUIRE(twin);
    CHECK(twin->owner.matches_nothing());
    Principal admin = User("root", {});
    admin.admin = true;
    auto schedules = ResolveListFilter(admin, "bob@https://other/", std::nullopt, ListKind::kSchedules);
    REQUIRE(schedules);
    CHECK(schedules->owner.matches_nothing());
}

TEST_CASE("list filter: schedules allow sub@iss to admins only, with 400") {
    const Principal alice = User("alice", {});
    CHECK(
        Denied(
            ResolveListFilter(alice, "alice@" + kIam, std::nullopt, ListKind::kSchedules), ErrorCode::kInvalidArgument
        ) == "Value alice@" + kIam + " for param createdBy is illegal"
    );
}

TEST_CASE("list filter: userGroup is checked, then filters") {
    const Principal bob = User("bob", {}, {"users", "physics"});
    CHECK(
        Denied(ResolveListFilter(bob, "", std::string("chemistry"), ListKind::kDeployments)) ==
        "The group chemistry is not in the user's authorized groups"
    );
    auto filter = ResolveListFilter(bob, "", std::string("physics"), ListKind::kDeployments);
    REQUIRE(filter);
    CHECK(filter->user_group == std::optional<std::string>("physics"));
}

TEST_CASE("list filter: auth disabled lists everything, createdBy and userGroup as plain filters") {
    auto all = ResolveListFilter(LocalPrincipal(), "", std::nullopt, ListKind::kDeployments);
    REQUIRE(all);
    CHECK_FALSE(all->owner.subject());
    CHECK_FALSE(all->owner.issuer());
    CHECK(all->owner.include_unowned());
    auto by = ResolveListFilter(LocalPrincipal(), "bob@" + kIam, std::string("g"), ListKind::kDeployments);
    REQUIRE(by);
    CHECK(by->owner.subject() == std::optional<std::string>("bob"));
    CHECK(by->owner.issuer() == std::optional<std::string>(kIam));
    CHECK_FALSE(by->owner.matches_nothing());
    CHECK(by->user_group == std::optional<std::string>("g"));
}
