// The one device vocabulary: its words read and written back, anything else refused with
// the list, and automatic resolved to what this machine has.
#include <gtest/gtest.h>

#include <string>

#include "strata/device.hpp"
#include "strata/error.hpp"

namespace strata {
namespace {

TEST(Device, WordsReadAndWrittenBack) {
  for (Device d : {Device::automatic, Device::cpu, Device::cuda}) EXPECT_EQ(parse_device(to_string(d)), d);
  EXPECT_EQ(parse_device(""), Device::automatic);
  EXPECT_EQ(parse_device("gpu"), Device::cuda);
  for (const char* bad : {"CPU", "cuda0", "host", " cpu", "cpu "}) {
    try {
      parse_device(bad, "--device");
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("--device: unknown device '" + std::string(bad) + "'"), std::string::npos) << m;
      EXPECT_NE(m.find("allowed auto, cpu, cuda"), std::string::npos) << m;
    }
  }
}

TEST(Device, AutomaticIsTheGpuWhereOneCanBeUsed) {
  EXPECT_EQ(resolve(Device::cpu), Device::cpu);
  EXPECT_EQ(resolve(Device::automatic), cuda_available() ? Device::cuda : Device::cpu);
  if (cuda_available()) {
    EXPECT_EQ(resolve(Device::cuda), Device::cuda);
  } else {
    EXPECT_THROW(resolve(Device::cuda, "device"), Error);
  }
}

}  // namespace
}  // namespace strata
