// A scalar computed on a backend's stream (by reduce_into) and read on the host later,
// without stalling the device: publish() queues its copy to pinned host memory and marks
// the stream; get() waits only for that mark. On the CPU it is a plain value.
#pragma once

#include "grid/backend.hpp"

namespace bouss {

template <class T>
class AsyncValue {
 public:
  AsyncValue() = default;
  explicit AsyncValue(const Backend& backend) : backend_(backend), host_backend_(Backend::cpu_pinned()) {
    device_ = static_cast<T*>(backend_.allocate(sizeof(T)));
    host_ = static_cast<T*>(host_backend_.allocate(sizeof(T)));
    *host_ = T{};
  }
  ~AsyncValue() {
    if (device_) backend_.deallocate(device_);
    if (host_) host_backend_.deallocate(host_);
  }
  AsyncValue(const AsyncValue&) = delete;
  AsyncValue& operator=(const AsyncValue&) = delete;

  // Where the value is computed: memory of the backend (pass to reduce_into).
  T* target() { return device_; }
  const T* target() const { return device_; }
  // Queues the copy to the host behind the work that computes the value.
  void publish() {
    copy_bytes_async(host_, host_backend_, device_, backend_, sizeof(T));
    ready_.record(backend_);
  }
  // Whether the published value has arrived (never waits).
  bool ready() const { return ready_.ready(); }
  // The published value; waits for it when it has not arrived yet.
  T get() const {
    ready_.wait();
    return *host_;
  }
  // The value now, without a publish: copies it and waits for the stream (off the hot path).
  T read() const {
    ready_.wait();  // a copy still under way into host_ lands first
    copy_bytes(host_, host_backend_, device_, backend_, sizeof(T));
    return *host_;
  }

 private:
  Backend backend_, host_backend_;
  T* device_ = nullptr;
  T* host_ = nullptr;
  StreamEvent ready_;
};

}  // namespace bouss
