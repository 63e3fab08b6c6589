#pragma once

#include <concepts>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace orch::placement {

/// A text of a verdict (site and service ids, names): either its own copy or, when placement
/// made it, a view of the catalogue or SLA text the decision keeps alive (its anchors). Thousands
/// of verdicts per placement then copy no strings, while a text set from any std::string (read
/// back from storage, written by a test) is simply owned and cannot dangle.
class AnchoredText {
   public:
    AnchoredText() = default;
    AnchoredText(std::string text)  // NOLINT(google-explicit-constructor)
        : owned_(std::make_shared<const std::string>(std::move(text))), view_(*owned_) {}
    AnchoredText(const char* text) : AnchoredText(std::string(text)) {}  // NOLINT(google-explicit-constructor)
    /// A view of text that the decision's anchors keep alive.
    static AnchoredText View(std::string_view text) {
        AnchoredText out;
        out.view_ = text;
        return out;
    }
    std::string_view view() const { return view_; }
    operator std::string_view() const { return view_; }  // NOLINT(google-explicit-constructor)
    std::string str() const { return std::string(view_); }
    bool empty() const { return view_.empty(); }
    /// Compares with any text (a template, so it wins over converting either side).
    template <typename T>
    requires std::convertible_to<const T&, std::string_view>
    friend bool operator==(const AnchoredText& a, const T& b) { return a.view_ == std::string_view(b); }
    friend std::ostream& operator<<(std::ostream& out, const AnchoredText& text) { return out << text.view_; }

   private:
    // An owned text is immutable and shared by copies, so the view into it stays valid however
    // the AnchoredText is copied or moved, and a view costs 32 bytes instead of a string slot.
    std::shared_ptr<const std::string> owned_;
    std::string_view view_;
};

}  // namespace orch::placement
