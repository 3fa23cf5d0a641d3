// A complex value as cuFFT and FFTW store one (real part first), with the arithmetic the
// Thomas sweeps need for a complex right-hand side with real rows, and the products the
// cosine transforms' twiddles need (solver/direct/cosine_kernels.hpp).
#pragma once

#include "grid/config.hpp"

namespace bouss {

template <class S>
struct Complex {
  S re, im;
  BOUSS_HD friend Complex operator*(Complex a, S s) { return {a.re * s, a.im * s}; }
  BOUSS_HD friend Complex operator*(S s, Complex a) { return {a.re * s, a.im * s}; }
  BOUSS_HD friend Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
  BOUSS_HD friend Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
  BOUSS_HD friend Complex operator*(Complex a, Complex b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
};
template <class S>
BOUSS_HD inline Complex<S> conj(Complex<S> a) {
  return {a.re, -a.im};
}
// i a
template <class S>
BOUSS_HD inline Complex<S> times_i(Complex<S> a) {
  return {-a.im, a.re};
}

}  // namespace bouss
