#include "grid/texture.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#ifdef BOUSS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace bouss {

std::uint64_t make_linear_texture(const Backend& backend, const void* p, std::size_t count,
                                  int element_bytes) {
#ifdef BOUSS_HAVE_CUDA
  if (backend.kind() != BackendKind::cuda || !p || count == 0) return 0;
  int device = 0, max_width = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&max_width, cudaDevAttrMaxTexture1DLinearWidth, device);
  if (count > std::size_t(max_width)) return 0;
  cudaResourceDesc resource;
  std::memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = const_cast<void*>(p);
  resource.res.linear.desc = element_bytes == 8 ? cudaCreateChannelDesc<int2>() : cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = count * std::size_t(element_bytes);
  cudaTextureDesc description;
  std::memset(&description, 0, sizeof description);
  description.readMode = cudaReadModeElementType;
  cudaTextureObject_t texture = 0;
  const cudaError_t e = cudaCreateTextureObject(&texture, &resource, &description, nullptr);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error(std::string("CUDA error in cudaCreateTextureObject: ") + cudaGetErrorString(e));
  }
  return texture;
#else
  (void)backend, (void)p, (void)count, (void)element_bytes;
  return 0;
#endif
}

void destroy_texture(std::uint64_t texture) {
#ifdef BOUSS_HAVE_CUDA
  if (texture) cudaDestroyTextureObject(texture);
#else
  (void)texture;
#endif
}

}  // namespace bouss
