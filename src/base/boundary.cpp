// Boundary parsing and description.
#include <charconv>
#include <cmath>
#include <sstream>

#include "strata/boundary.hpp"
#include "strata/error.hpp"

namespace strata {

Boundary Boundary::parse(std::string_view text) {
  const std::string allowed = "allowed: dirichlet, dirichlet:VALUE, neumann, periodic";
  if (text == "neumann") return neumann();
  if (text == "periodic") return periodic();
  if (text == "dirichlet") return dirichlet(0.0);
  if (text.starts_with("dirichlet:")) {
    const std::string v(text.substr(10));
    char* end = nullptr;
    const double value = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(value))
      throw Error("boundary '" + std::string(text) + "': the Dirichlet value '" + v +
                  "' is not a finite number (" + allowed + ")");
    return dirichlet(value);
  }
  throw Error("unknown boundary condition '" + std::string(text) + "' (" + allowed + ")");
}

std::string Boundary::describe() const {
  switch (kind) {
    case BoundaryKind::neumann: return "neumann";
    case BoundaryKind::periodic: return "periodic";
    case BoundaryKind::dirichlet: return "dirichlet:" + format_number(value);
  }
  return "?";
}

}  // namespace strata
