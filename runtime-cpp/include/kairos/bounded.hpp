// Fixed-capacity containers for the model's bounded types: string<N> and sequence<T, N>.
// Storage is inline, so generated types never touch the heap.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace kairos {

/// A string of at most Capacity characters.
template <std::size_t Capacity>
class BoundedString {
 public:
  constexpr BoundedString() = default;

  /// The text of a string literal: how a generated segment field starts with its model's initial
  /// value (`string<8> label = "idle";`). A literal longer than the capacity does not compile.
  template <std::size_t Size>
  explicit constexpr BoundedString(const char (&text)[Size]) noexcept : size_{Size - 1} {
    static_assert(Size >= 1 && Size - 1 <= Capacity, "the text does not fit the string's capacity");
    std::copy(text, text + (Size - 1), chars_.begin());
  }

  /// Other text (a string constant of the model): stored as assign() does, so text beyond the
  /// capacity leaves the string empty. Generated code passes only text the model's validation has
  /// measured against the bound.
  explicit constexpr BoundedString(std::string_view text) noexcept { assign(text); }

  /// Stores `text`; false (and unchanged) if it does not fit.
  constexpr bool assign(std::string_view text) noexcept {
    if (text.size() > Capacity) {
      return false;
    }
    std::copy(text.begin(), text.end(), chars_.begin());
    size_ = text.size();
    return true;
  }

  /// Sets the length to `length` characters, the new ones NUL; false (and unchanged) beyond
  /// the capacity. Decoders resize, then fill data().
  constexpr bool resize(std::size_t length) noexcept {
    if (length > Capacity) {
      return false;
    }
    std::fill(chars_.begin() + static_cast<std::ptrdiff_t>(std::min(size_, length)),
              chars_.begin() + static_cast<std::ptrdiff_t>(length), '\0');
    size_ = length;
    return true;
  }

  constexpr std::string_view view() const noexcept { return {chars_.data(), size_}; }
  constexpr char* data() noexcept { return chars_.data(); }
  constexpr const char* data() const noexcept { return chars_.data(); }
  constexpr std::size_t size() const noexcept { return size_; }
  static constexpr std::size_t capacity() noexcept { return Capacity; }

  friend constexpr bool operator==(const BoundedString& a, const BoundedString& b) noexcept {
    return a.view() == b.view();
  }

 private:
  std::array<char, Capacity> chars_{};
  std::size_t size_ = 0;
};

/// A sequence of at most Capacity elements.
template <typename T, std::size_t Capacity>
class BoundedSequence {
 public:
  constexpr BoundedSequence() = default;

  /// Appends `value`; false if the sequence is full.
  constexpr bool push_back(const T& value) noexcept {
    if (size_ == Capacity) {
      return false;
    }
    items_[size_++] = value;
    return true;
  }

  /// Sets the size to `count`, the new elements value-initialised; false (and unchanged) beyond
  /// the capacity.
  constexpr bool resize(std::size_t count) noexcept {
    if (count > Capacity) {
      return false;
    }
    std::fill(items_.begin() + static_cast<std::ptrdiff_t>(std::min(size_, count)),
              items_.begin() + static_cast<std::ptrdiff_t>(count), T{});
    size_ = count;
    return true;
  }

  constexpr void clear() noexcept { size_ = 0; }
  constexpr std::size_t size() const noexcept { return size_; }
  static constexpr std::size_t capacity() noexcept { return Capacity; }
  constexpr const T& operator[](std::size_t index) const noexcept { return items_[index]; }
  constexpr T& operator[](std::size_t index) noexcept { return items_[index]; }
  constexpr const T* begin() const noexcept { return items_.data(); }
  constexpr const T* end() const noexcept { return items_.data() + size_; }
  constexpr T* begin() noexcept { return items_.data(); }
  constexpr T* end() noexcept { return items_.data() + size_; }

  friend constexpr bool operator==(const BoundedSequence& a, const BoundedSequence& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::array<T, Capacity> items_{};
  std::size_t size_ = 0;
};

}  // namespace kairos
