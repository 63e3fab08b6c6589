#pragma once

#include <concepts>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace orch::placement {

/// An immutable text that owns, or shares ownership of, what it shows (verdict ids and names).
/// Placement makes thousands of verdicts per decision: each text is then a view into the
/// catalogue or SLA text plus a reference to what keeps that text alive, i.e. one reference count
/// increment instead of a string copy. Copies share the owner, so a text is valid as long as it
/// exists, wherever it is copied to.
class SharedText {
   public:
    SharedText() = default;
    SharedText(std::string text)  // NOLINT(google-explicit-constructor)
        : owner_(std::make_shared<const std::string>(std::move(text))),
          view_(*std::static_pointer_cast<const std::string>(owner_)) {}
    SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT(google-explicit-constructor)
    /// `text` lies inside what `owner` keeps alive (like shared_ptr's aliasing constructor).
    SharedText(std::shared_ptr<const void> owner, std::string_view text) : owner_(std::move(owner)), view_(text) {}

    std::string_view view() const { return view_; }
    operator std::string_view() const { return view_; }  // NOLINT(google-explicit-constructor)
    std::string str() const { return std::string(view_); }
    bool empty() const { return view_.empty(); }
    /// Compares with any text (a template, so it wins over converting either side).
    template <typename T>
    requires std::convertible_to<const T&, std::string_view>
    friend bool operator==(const SharedText& a, const T& b) { return a.view_ == std::string_view(b); }
    friend std::ostream& operator<<(std::ostream& out, const SharedText& text) { return out << text.view_; }

   private:
    std::shared_ptr<const void> owner_;
    std::string_view view_;
};

}  // namespace orch::placement
