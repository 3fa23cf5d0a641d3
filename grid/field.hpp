// A 3D array of one grid, owned by a backend and laid out by the grid's congruent Layout.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "grid/backend.hpp"
#include "grid/layout.hpp"
#include "grid/view.hpp"

namespace bouss {

template <class T>
class Field {
 public:
  Field() = default;
  Field(const Backend& backend, const Layout& layout, Stagger stagger, std::string name)
      : backend_(backend), layout_(layout), stagger_(stagger), name_(std::move(name)) {
    data_ = static_cast<T*>(backend_.allocate(bytes()));
  }
  ~Field() { release(); }
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;
  Field(Field&& o) noexcept { *this = std::move(o); }
  Field& operator=(Field&& o) noexcept {
    if (this != &o) {
      release();
      backend_ = o.backend_;
      layout_ = o.layout_;
      stagger_ = o.stagger_;
      name_ = std::move(o.name_);
      data_ = o.data_;
      o.data_ = nullptr;
    }
    return *this;
  }

  View<T> view() { return View<T>{data_ + layout_.origin, layout_.sy, layout_.sz, -layout_.origin, layout_.size - layout_.origin}; }
  View<const T> view() const { return cview(); }
  View<const T> cview() const {
    return View<const T>(data_ + layout_.origin, layout_.sy, layout_.sz, -layout_.origin,
                         layout_.size - layout_.origin);
  }

  const Backend& backend() const { return backend_; }
  const Layout& layout() const { return layout_; }
  Stagger stagger() const { return stagger_; }
  const std::string& name() const { return name_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  bool allocated() const { return data_ != nullptr; }
  std::size_t bytes() const { return std::size_t(layout_.size) * sizeof(T); }

  // Whole padded array, ghosts included, to and from the host.
  std::vector<T> to_host() const {
    std::vector<T> h(layout_.size);
    copy_bytes(h.data(), Backend::cpu(), data_, backend_, bytes());
    return h;
  }
  void from_host(const std::vector<T>& h) {
    copy_bytes(data_, backend_, h.data(), Backend::cpu(), bytes());
  }
  // Same layout, any backends.
  void copy_from(const Field& src) {
    copy_bytes(data_, backend_, src.data_, src.backend_, bytes());
  }

  void swap(Field& o) noexcept {
    std::swap(data_, o.data_);  // the storage moves; names and layouts stay
  }

 private:
  void release() {
    if (data_) backend_.deallocate(data_);
    data_ = nullptr;
  }
  Backend backend_;
  Layout layout_;
  Stagger stagger_ = Stagger::centre;
  std::string name_;
  T* data_ = nullptr;
};

}  // namespace bouss
