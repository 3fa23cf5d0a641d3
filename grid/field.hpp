// A 3D array of one grid, owned by a backend and laid out by the grid's congruent Layout.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "grid/backend.hpp"
#include "grid/layout.hpp"
#include "grid/view.hpp"
#if defined(BOUSS_LOADS_TEX)
#include "grid/texture.hpp"
#endif

namespace bouss {

template <class T>
class Field {
 public:
  Field() = default;
  Field(const Backend& backend, const Layout& layout, Stagger stagger, std::string name)
      : backend_(backend), layout_(layout), stagger_(stagger), name_(std::move(name)) {
    data_ = static_cast<T*>(backend_.allocate(bytes()));
#if defined(BOUSS_LOADS_TEX)
    if (std::is_floating_point<T>::value)
      texture_ = make_linear_texture(backend_, data_, std::size_t(layout_.size), int(sizeof(T)));
#endif
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
#if defined(BOUSS_LOADS_TEX)
      texture_ = o.texture_;
      o.texture_ = 0;
#endif
    }
    return *this;
  }

  View<T> view() {
    View<T> v{data_ + layout_.origin, layout_.sy, layout_.sz, -layout_.origin, layout_.size - layout_.origin};
#if defined(BOUSS_LOADS_TEX)
    v.texture = texture_;
    v.texture_origin = layout_.origin;
#endif
    return v;
  }
  View<const T> view() const { return cview(); }
  View<const T> cview() const {
    View<const T> v(data_ + layout_.origin, layout_.sy, layout_.sz, -layout_.origin,
                    layout_.size - layout_.origin);
#if defined(BOUSS_LOADS_TEX)
    v.texture = texture_;
    v.texture_origin = layout_.origin;
#endif
    return v;
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
#if defined(BOUSS_LOADS_TEX)
    std::swap(texture_, o.texture_);
#endif
  }

 private:
  void release() {
#if defined(BOUSS_LOADS_TEX)
    destroy_texture(texture_);
    texture_ = 0;
#endif
    if (data_) backend_.deallocate(data_);
    data_ = nullptr;
  }
  Backend backend_;
  Layout layout_;
  Stagger stagger_ = Stagger::centre;
  std::string name_;
  T* data_ = nullptr;
#if defined(BOUSS_LOADS_TEX)
  std::uint64_t texture_ = 0;
#endif
};

}  // namespace bouss
