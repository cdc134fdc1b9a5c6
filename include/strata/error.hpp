// strata::Error: the one exception type strata throws, for bad input and for failed
// CUDA calls alike. The message says what went wrong and, for input, what is allowed.
#pragma once

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

}  // namespace strata
