// VTK XML ImageData writer: header with WholeExtent / Origin / Spacing, one PointData array
// in "appended" raw format, preceded by its byte count as UInt64 (header_type="UInt64").
#include "io/vti.hpp"

#include <cstdint>
#include <cstdio>

#include "io/atomic_file.hpp"

namespace strata::io {

template <class T>
std::string vti_head(Extent n, std::array<double, 3> origin, double spacing, const std::string& name) {
  char head[1024];
  std::snprintf(head, sizeof head,
                "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
                "  <ImageData WholeExtent=\"0 %d 0 %d 0 %d\" Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g %.17g\">\n"
                "    <Piece Extent=\"0 %d 0 %d 0 %d\">\n"
                "      <PointData Scalars=\"%s\">\n"
                "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"1\" format=\"appended\" offset=\"0\"/>\n"
                "      </PointData>\n"
                "    </Piece>\n"
                "  </ImageData>\n"
                "  <AppendedData encoding=\"raw\">\n   _",
                n.nx - 1, n.ny - 1, n.nz - 1, origin[0], origin[1], origin[2], spacing, spacing, spacing,
                n.nx - 1, n.ny - 1, n.nz - 1, name.c_str(), sizeof(T) == 4 ? "Float32" : "Float64",
                name.c_str());
  std::string out = head;
  const std::uint64_t bytes = n.points() * sizeof(T);
  out.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
  return out;
}

std::string vti_tail() { return "\n  </AppendedData>\n</VTKFile>\n"; }

template <class T>
void write_vti(const std::string& path, std::span<const T> values, Extent n,
               std::array<double, 3> origin, double spacing, const std::string& name) {
  require(values.size() == n.points(), "write_vti: " + std::to_string(values.size()) +
                                           " values for a " + n.str() + " grid");
  const std::string head = vti_head<T>(n, origin, spacing, name), tail = vti_tail();
  AtomicFile f(path);
  f.write(head.data(), head.size());
  f.write(values.data(), values.size_bytes());
  f.write(tail.data(), tail.size());
  f.commit();
}

template void write_vti(const std::string&, std::span<const float>, Extent, std::array<double, 3>, double,
                        const std::string&);
template void write_vti(const std::string&, std::span<const double>, Extent, std::array<double, 3>, double,
                        const std::string&);

}  // namespace strata::io

namespace strata::io {
template std::string vti_head<float>(Extent, std::array<double, 3>, double, const std::string&);
template std::string vti_head<double>(Extent, std::array<double, 3>, double, const std::string&);
}  // namespace strata::io
