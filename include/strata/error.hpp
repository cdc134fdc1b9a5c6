// strata::Error: the one exception type strata throws, for bad input and for failed
// CUDA calls alike. The message says what went wrong and, for input, what is allowed.
#pragma once

#include <charconv>
#include <stdexcept>
#include <string>

namespace strata {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Throws Error(message) when cond is false. For input validation in the public API.
inline void require(bool cond, const std::string& message) {
  if (!cond) throw Error(message);
}

// A number as messages and reports print it: the shortest text that reads back as the same
// double ("0.1", "-2.6666666666666665", "1e+38", "inf"), never a fixed count of digits.
inline std::string format_number(double v) {
  char b[32];
  return std::string(b, std::to_chars(b, b + sizeof b, v).ptr);
}

}  // namespace strata
