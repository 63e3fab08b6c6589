#pragma once

#include "common/error.hpp"

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace orch {

/// A value or an Error: the subset of C++23 std::expected that we use (g++ 12 lacks it in C++20 mode),
/// shaped like it so a later migration is mechanical. Expected failures are returned, not thrown.
template <typename T>
class [[nodiscard]] Result {
   public:
    Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : data_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool has_value() const { return data_.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T& value() & {
        assert(has_value());
        return std::get<0>(data_);
    }
    const T& value() const& {
        assert(has_value());
        return std::get<0>(data_);
    }
    T&& value() && {
        assert(has_value());
        return std::get<0>(std::move(data_));
    }
    const Error& error() const& {
        assert(!has_value());
        return std::get<1>(data_);
    }
    Error&& error() && {
        assert(!has_value());
        return std::get<1>(std::move(data_));
    }

    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    template <typename U>
    T value_or(U&& fallback) const& {
        return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
    }

   private:
    std::variant<T, Error> data_;
};

/// Result of an operation that yields nothing but may fail.
template <>
class [[nodiscard]] Result<void> {
   public:
    Result() = default;
    Result(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool has_value() const { return !error_.has_value(); }
    explicit operator bool() const { return has_value(); }
    const Error& error() const {
        assert(error_.has_value());
        return *error_;
    }

   private:
    std::optional<Error> error_;
};

using Status = Result<void>;

inline Status Ok() {
    return {};
}

}  // namespace orch

/// Returns the error of `expr` (a Result) from the enclosing function when it failed.
#define ORCH_RETURN_IF_ERROR(expr)                       \
    do {                                                 \
        if (auto orch_status_ = (expr); !orch_status_) { \
            return std::move(orch_status_).error();      \
        }                                                \
    } while (false)

#define ORCH_CONCAT_INNER(a, b) a##b
#define ORCH_CONCAT(a, b) ORCH_CONCAT_INNER(a, b)

/// `lhs = value of expr` (a Result), or return its error from the enclosing function.
#define ORCH_ASSIGN_OR_RETURN(lhs, expr)                               \
    auto ORCH_CONCAT(orch_result_, __LINE__) = (expr);                 \
    if (!ORCH_CONCAT(orch_result_, __LINE__)) {                        \
        return std::move(ORCH_CONCAT(orch_result_, __LINE__)).error(); \
    }                                                                  \
    lhs = std::move(*ORCH_CONCAT(orch_result_, __LINE__))  // NOLINT(bugprone-macro-parentheses): lhs may declare
