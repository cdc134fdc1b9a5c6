// io/tuning_state.hpp: tuning::choices() as JSON.
#include "io/tuning_state.hpp"

#include <string>

#include "strata/tuning.hpp"

namespace strata::io {

nlohmann::json tuning_state() {
  nlohmann::json choices = nlohmann::json::array();
  for (const tuning::Choice& c : tuning::choices())
    choices.push_back({{"device", c.device},
                       {"family", c.family},
                       {"variant", c.variant},
                       {"source", c.source},
                       {"detail", c.detail}});
  return {{"mode", std::string(tuning::to_string(tuning::mode()))},
          {"cache", tuning::cache_path()},
          {"choices", choices}};
}

}  // namespace strata::io
