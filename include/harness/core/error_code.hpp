// A closed, typed error code: one `enum class errc` per component (see
// include/harness/<component>/errors.hpp), each with its boost::system error
// category. The category gives every value its stable wire name (the snake_case
// code clients read in JSON) and its HTTP status, from the one table each
// errors.hpp writes (harness/core/errc_table.hpp), so a value cannot lack either.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/system/error_code.hpp>

namespace harness {

// The base of every component's category. Categories are static singletons,
// never deleted through a base pointer; boost's base has a public non-virtual
// destructor, which -Wnon-virtual-dtor would reject.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class error_category : public boost::system::error_category {
 public:
  // The stable snake_case code written in JSON ("mcp_timeout"); empty for a
  // value that is not in the enum.
  virtual std::string_view wire_name(int value) const noexcept = 0;
  // The HTTP status a request that failed with this code answers with
  // (400..599); 0 for a value that is not in the enum.
  virtual unsigned http_status(int value) const noexcept = 0;

  std::string message(int value) const override { return std::string(wire_name(value)); }

 protected:
  error_category() = default;
  ~error_category() = default;
};
#pragma GCC diagnostic pop

// How many values a component's errc has (they run 1..count); each errors.hpp
// specialises it next to its enum, with HARNESS_ERRC_COUNT of its table.
template <class E>
inline constexpr int errc_count = 0;

template <class E>
concept error_enum = std::is_enum_v<E> && boost::system::is_error_code_enum<E>::value &&(errc_count<E> > 0);

// One of our codes: built only from a component's errc, never from a string or
// from another library's error_code.
class error_code {
 public:
  template <error_enum E>
  error_code(E e) noexcept : code_(make_error_code(e)) {}  // NOLINT: implicit on purpose

  std::string_view wire_name() const noexcept { return category().wire_name(code_.value()); }
  unsigned http_status() const noexcept { return category().http_status(code_.value()); }
  const harness::error_category& category() const noexcept {
    return static_cast<const harness::error_category&>(code_.category());
  }
  int value() const noexcept { return code_.value(); }
  const boost::system::error_code& boost_code() const noexcept { return code_; }

  // True when the code is one of E's values.
  template <error_enum E>
  bool is() const noexcept {
    return code_.category() == make_error_code(E{}).category();
  }

  friend bool operator==(const error_code& a, const error_code& b) noexcept { return a.code_ == b.code_; }
  // Prints the wire name, so test failures read "mcp_timeout", not "mcp:8".
  friend std::ostream& operator<<(std::ostream& os, const error_code& c) { return os << c.wire_name(); }

 private:
  boost::system::error_code code_;
};

// The value of E whose wire name is `name`, if any (reading a code back from JSON).
template <error_enum E>
std::optional<E> errc_from_wire_name(std::string_view name) {
  for (int v = 1; v <= errc_count<E>; ++v) {
    if (error_code(static_cast<E>(v)).wire_name() == name) return static_cast<E>(v);
  }
  return std::nullopt;
}

}  // namespace harness
