#pragma once

#include <concepts>
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
    AnchoredText(std::string text)
        : owned_(std::move(text)), view_(owned_), owning_(true) {}       // NOLINT(google-explicit-constructor)
    AnchoredText(const char* text) : AnchoredText(std::string(text)) {}  // NOLINT(google-explicit-constructor)
    AnchoredText(const AnchoredText& other) { *this = other; }
    AnchoredText(AnchoredText&& other) noexcept { *this = std::move(other); }
    AnchoredText& operator=(const AnchoredText& other) {
        if (this != &other) {
            owned_ = other.owned_;
            owning_ = other.owning_;
            view_ = owning_ ? std::string_view(owned_) : other.view_;
        }
        return *this;
    }
    AnchoredText& operator=(AnchoredText&& other) noexcept {
        if (this != &other) {
            owned_ = std::move(other.owned_);
            owning_ = other.owning_;
            view_ = owning_ ? std::string_view(owned_) : other.view_;
        }
        return *this;
    }
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
    std::string owned_;  ///< only when owning_ (a view's own copy stays empty)
    std::string_view view_;
    bool owning_ = false;
};

}  // namespace orch::placement
