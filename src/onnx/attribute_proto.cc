#include "attribute_proto.h"

#include <onnx/onnx_pb.h>

#include "npugap/onnx/tensor_proto.h"

namespace npugap::onnx_import {

Expected<bool> ConvertPlainAttribute(const onnx::AttributeProto& a, const std::string& model_dir,
                                     ir::Attribute& attr) {
  using K = ir::Attribute::Kind;
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT:
      attr.kind = K::kFloat;
      attr.f = a.f();
      return true;
    case onnx::AttributeProto::INT:
      attr.kind = K::kInt;
      attr.i = a.i();
      return true;
    case onnx::AttributeProto::STRING:
      attr.kind = K::kString;
      attr.s = a.s();
      return true;
    case onnx::AttributeProto::FLOATS:
      attr.kind = K::kFloats;
      attr.floats.assign(a.floats().begin(), a.floats().end());
      return true;
    case onnx::AttributeProto::INTS:
      attr.kind = K::kInts;
      attr.ints.assign(a.ints().begin(), a.ints().end());
      return true;
    case onnx::AttributeProto::STRINGS:
      attr.kind = K::kStrings;
      attr.strings.assign(a.strings().begin(), a.strings().end());
      return true;
    case onnx::AttributeProto::TENSOR: {
      attr.kind = K::kTensor;
      NPUGAP_ASSIGN_OR_RETURN(attr.t, TensorFromProto(a.t(), model_dir));
      return true;
    }
    case onnx::AttributeProto::TENSORS:
      attr.kind = K::kTensors;
      for (const auto& tp : a.tensors()) {
        NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, TensorFromProto(tp, model_dir));
        attr.tensors.push_back(std::move(t));
      }
      return true;
    default:
      return false;
  }
}

}  // namespace npugap::onnx_import
