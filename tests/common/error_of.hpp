// The message of the strata::Error a call throws, for tests that check what a refusal says.
#pragma once

#include <functional>
#include <string>

#include "strata/error.hpp"

namespace strata::test {

// "" when f throws nothing; another exception type propagates (a test should see it).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace strata::test
