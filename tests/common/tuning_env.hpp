// The tuning tests' surroundings: a directory of the test's own holding the cache file
// (STRATA_TUNE_CACHE), STRATA_TUNE, XDG_CACHE_HOME and HOME unset, a fresh tuner; everything
// restored and removed afterwards.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "cuda/tuning/tuner.hpp"

namespace strata::test {

class TuningEnv {
 public:
  TuningEnv() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = std::filesystem::temp_directory_path() /
          ("strata_tuning_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" +
           info->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    for (const char* name : {"STRATA_TUNE", "STRATA_TUNE_CACHE", "XDG_CACHE_HOME", "HOME"}) {
      const char* v = std::getenv(name);
      saved_[name] = v ? std::optional<std::string>(v) : std::nullopt;
      ::unsetenv(name);
    }
    cache = (dir / "cache" / "tuning.json").string();
    ::setenv("STRATA_TUNE_CACHE", cache.c_str(), 1);
    tuning::reset();
  }
  ~TuningEnv() {
    tuning::set_note_handler({});
    tuning::reset();
    for (const auto& [name, v] : saved_)
      if (v)
        ::setenv(name.c_str(), v->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    std::filesystem::remove_all(dir);
  }
  TuningEnv(const TuningEnv&) = delete;
  TuningEnv& operator=(const TuningEnv&) = delete;

  std::filesystem::path dir;
  std::string cache;  // dir/cache/tuning.json: the directory is made by the first save

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

}  // namespace strata::test
