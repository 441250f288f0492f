// oneDNN's view of a convolution geometry, shared by the float32 oneDNN convolution
// (nn_conv.cc) and the bf16 one of the precision emulator (nn_conv_onednn_bf16.cc).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "nn_internal.h"

namespace npugap::exec::nn {

struct DnnlConvDims {
  dnnl::memory::dims src, dst, weights;               // N x C x spatial; (G x) O x I x kernel
  dnnl::memory::dims strides, dilates, pad_l, pad_r;  // dilates count the gaps (ONNX dilation - 1)
};
DnnlConvDims ToDnnlConvDims(const ConvGeometry& g);

}  // namespace npugap::exec::nn
