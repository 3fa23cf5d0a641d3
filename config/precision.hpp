// The precision of a run's fields (Case::precision) and of the fields an output stream
// stores (OutputStream::precision). Time, dt and every reduction stay double.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace bouss {

enum class Precision { double_precision, single_precision };

// Its word in the case's "precision" key, as the case file and the log spell it: "double"
// or "single".
constexpr const char* precision_name(Precision p) {
  return p == Precision::single_precision ? "single" : "double";
}

// The C type of its values, the word an output stream's "precision" takes: "double" or "float".
constexpr const char* type_name(Precision p) { return p == Precision::single_precision ? "float" : "double"; }

// Bytes per value.
constexpr std::size_t value_bytes(Precision p) {
  return p == Precision::single_precision ? sizeof(float) : sizeof(double);
}

// The precision of the floating-point type R.
template <class R>
constexpr Precision precision_of() {
  return sizeof(R) == sizeof(float) ? Precision::single_precision : Precision::double_precision;
}

// The precision precision_name spells `word` ("double" or "single"); none for another word.
inline std::optional<Precision> precision_named(std::string_view word) {
  for (Precision p : {Precision::double_precision, Precision::single_precision})
    if (word == precision_name(p)) return p;
  return std::nullopt;
}

// The precision whose type_name is `type` ("double" or "float"); none for another word.
inline std::optional<Precision> precision_of_type(std::string_view type) {
  for (Precision p : {Precision::double_precision, Precision::single_precision})
    if (type == type_name(p)) return p;
  return std::nullopt;
}

}  // namespace bouss
