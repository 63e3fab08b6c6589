#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::placement {

/// One reason (a rejected site) or note (an accepted one), kept as what was found and put into
/// words only when shown (Text). A placement explains thousands of sites and most of those
/// explanations are never read, so the frequent ones are a code and a few pointers instead of a
/// string built per site. The pointers point into data the reason itself keeps alive (its owner:
/// the catalogue, the request's node names), so a reason is valid wherever it is copied to.
class Reason {
   public:
    Reason() = default;
    /// Already in words: rarer reasons, and reasons read back from a stored decision.
    Reason(std::string text) : text_(std::move(text)) {}  // NOLINT(google-explicit-constructor)
    Reason(const char* text) : text_(text) {}             // NOLINT(google-explicit-constructor)
    /// A text that lives as long as the program (a literal): no copy.
    static Reason Fixed(std::string_view text);
    /// "node '<node>': flavor <flavor>, image '<image>'". Keeps the three strings' addresses and
    /// reads them only when shown (thousands of sites get this note per placement); the strings
    /// lie inside what `owner` keeps alive.
    static Reason VmChoice(
        std::shared_ptr<const void> owner, const std::string& node, const std::string& flavor, const std::string& image
    );
    /// Put into words by `render(subject, detail)` when shown: for reasons that take work to
    /// word (e.g. which flavor comes closest) and are rarely read. Both pointers point into what
    /// `owner` keeps alive.
    using Render = std::string (*)(const void* subject, const void* detail);
    static Reason Deferred(Render render, std::shared_ptr<const void> owner, const void* subject, const void* detail);

    std::string Text() const;
    bool operator==(const Reason& other) const { return Text() == other.Text(); }

   private:
    enum class Code : std::uint8_t { kText, kFixed, kVmChoice, kDeferred };
    Code code_ = Code::kText;
    std::string text_;                   ///< kText
    std::shared_ptr<const void> owner_;  ///< kVmChoice, kDeferred: what their pointers point into
    // One of these, by code_ (trivially copyable, so Reason copies and moves as its members do).
    struct FixedArgs {
        const char* data;
        std::size_t size;
    };
    struct DeferredArgs {
        Render render;
        const void* subject;
        const void* detail;
    };
    union {
        DeferredArgs deferred_{};  ///< largest member: all bytes start zeroed NOLINT(readability-identifier-naming)
        FixedArgs fixed_;          // NOLINT(readability-identifier-naming): private storage
        const std::string* vm_choice_[3];  ///< node, flavor, image NOLINT(readability-identifier-naming)
    };
};

/// The reasons of one site, in order. The first lives inline, so the usual one-note site
/// allocates nothing.
class Reasons {
   public:
    class const_iterator {
       public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Reason;
        using difference_type = std::ptrdiff_t;
        using pointer = const Reason*;
        using reference = const Reason&;

        const_iterator() = default;
        const_iterator(const Reasons* owner, std::size_t at) : owner_(owner), at_(at) {}
        reference operator*() const { return (*owner_)[at_]; }
        pointer operator->() const { return &(*owner_)[at_]; }
        const_iterator& operator++() {
            ++at_;
            return *this;
        }
        const_iterator operator++(int) {
            auto copy = *this;
            ++at_;
            return copy;
        }
        bool operator==(const const_iterator& other) const { return at_ == other.at_; }

       private:
        const Reasons* owner_ = nullptr;
        std::size_t at_ = 0;
    };

    Reasons() = default;
    Reasons(const std::vector<std::string>& texts);  // NOLINT(google-explicit-constructor)

    void push_back(Reason reason);
    std::size_t size() const { return first_ ? 1 + rest_.size() : 0; }
    bool empty() const { return !first_; }
    const Reason& operator[](std::size_t i) const { return i == 0 ? *first_ : rest_[i - 1]; }
    const Reason& back() const { return (*this)[size() - 1]; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    /// Every reason in words.
    std::vector<std::string> Texts() const;

   private:
    std::optional<Reason> first_;
    std::vector<Reason> rest_;
};

}  // namespace orch::placement
