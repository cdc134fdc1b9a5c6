// CTest's resource allocation, for the GPU tests: tools/test.sh gives CTest the GPUs it sees
// (a resource spec file: `gpus`, one entry per GPU), every GPU test asks for one slot of one
// GPU (RESOURCE_GROUPS "gpus:1"), and CTest says in the test's environment which it got:
//   CTEST_RESOURCE_GROUP_COUNT=1, CTEST_RESOURCE_GROUP_0=gpus,
//   CTEST_RESOURCE_GROUP_0_GPUS=id:2,slots:1
// The test process then sees that GPU alone, so a 4-GPU host runs its GPU tests on all four
// instead of every one of them on GPU 0. Without a spec file (a machine without GPUs, or
// ctest run by hand) CTest sets nothing and nothing changes.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::test {

// The CUDA_VISIBLE_DEVICES value for the GPUs CTest gave this test, each once, in the order
// given; nullopt when CTest gave none (nothing to change). An id is the index of a GPU among
// those visible when tools/test.sh counted them, so where CUDA_VISIBLE_DEVICES was already set
// it picks that list's entry. `env` reads one environment variable (nullptr: unset). Throws
// std::runtime_error on an allocation it cannot read, rather than run on a GPU not given.
inline std::optional<std::string> ctest_visible_devices(
    const std::function<const char*(const std::string&)>& env) {
  const char* count = env("CTEST_RESOURCE_GROUP_COUNT");
  if (!count || !*count) return std::nullopt;
  auto split = [](const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string item;
    for (char c : s + sep) {
      if (c == sep) {
        if (!item.empty()) parts.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item += c;
      }
    }
    return parts;
  };
  auto number = [](const std::string& s, const std::string& what) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("CTest's resource allocation: " + what + " is '" + s +
                               "', not a number");
    return std::stoi(s);
  };
  std::vector<int> ids;
  const int groups = number(count, "CTEST_RESOURCE_GROUP_COUNT");
  for (int g = 0; g < groups; ++g) {
    const std::string var = "CTEST_RESOURCE_GROUP_" + std::to_string(g) + "_GPUS";
    const char* given = env(var);
    if (!given) continue;  // a group of other resources
    for (const std::string& entry : split(given, ';')) {
      int id = -1;
      for (const std::string& field : split(entry, ','))
        if (field.rfind("id:", 0) == 0) id = number(field.substr(3), var + "'s id");
      if (id < 0)
        throw std::runtime_error("CTest's resource allocation: " + var + "='" + given +
                                 "' names no id");
      bool seen = false;
      for (int i : ids) seen = seen || i == id;
      if (!seen) ids.push_back(id);
    }
  }
  if (ids.empty()) return std::nullopt;
  const char* was = env("CUDA_VISIBLE_DEVICES");
  const std::vector<std::string> visible = was ? split(was, ',') : std::vector<std::string>{};
  std::string value;
  for (int id : ids) {
    if (was && std::size_t(id) >= visible.size())
      throw std::runtime_error("CTest gave GPU " + std::to_string(id) +
                               " but CUDA_VISIBLE_DEVICES='" + std::string(was) + "' lists " +
                               std::to_string(visible.size()));
    value += (value.empty() ? "" : ",") + (was ? visible[std::size_t(id)] : std::to_string(id));
  }
  return value;
}

}  // namespace strata::test
