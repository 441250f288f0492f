// CANN's format and dtype spellings read into the cost model's names (kernel_reader_spellings.h).
//
// Source of both tables: the msprof analysis code that writes op_summary_*.csv (Ascend/msprof,
// analysis/csrc/domain/services/persistence/host/number_mapping.cpp: geDataTypeMap, geFormatMap;
// the Python writer's twin is analysis/common_func/ms_constant/ge_enum_constant.py). torch_npu's
// kernel_details.csv copies those columns from op_summary unchanged (Ascend/pytorch,
// torch_npu/profiler/analysis/prof_view/_kernel_view_parser.py), so one table serves both.
#include "kernel_reader_spellings.h"

#include <fmt/format.h>

#include <utility>

namespace npugap::analysis::perf {
namespace {

// geFormatMap's names (GE's Format enum 0-55, 0xff and UINT32_MAX), and the calibration CSV's two
// names outside it. Kept as written except FRACTAL_Z, which FormatFromCann reads as FracZ.
// clang-format off
constexpr std::string_view kFormats[] = {
    "NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NC1C0HWPAD", "NHWC1C0", "FSR_NCHW", "FRACTAL_DECONV",
    "C1HWNC0", "FRACTAL_DECONV_TRANSPOSE", "FRACTAL_DECONV_SP_STRIDE_TRANS", "NC1HWC0_C04", "FRACTAL_Z_C04",
    "CHWN", "FRACTAL_DECONV_SP_STRIDE8_TRANS", "HWCN", "NC1KHKWHWC0", "BN_WEIGHT", "FILTER_HWCK",
    "HASHTABLE_LOOKUP_LOOKUPS", "HASHTABLE_LOOKUP_KEYS", "HASHTABLE_LOOKUP_VALUE", "HASHTABLE_LOOKUP_OUTPUT",
    "HASHTABLE_LOOKUP_HITS", "C1HWNCoC0", "MD", "NDHWC", "FRACTAL_ZZ", "FRACTAL_NZ", "NCDHW", "DHWCN",
    "NDC1HWC0", "FRACTAL_Z_3D", "CN", "NC", "DHWNC", "FRACTAL_Z_3D_TRANSPOSE", "FRACTAL_ZN_LSTM",
    "FRACTAL_Z_G", "RESERVED", "ALL", "NULL", "ND_RNN_BIAS", "FRACTAL_ZN_RNN", "END", "NCL", "FRACTAL_Z_WINO",
    "C1HWC0", "FRACTAL_NZ_C0_16", "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8",
    "MAX", "UNDEFINED", "FracZ", "DefaultFormat",
};
// clang-format on

// geFormatMap's MindSpore-side names (200-221, a trailing underscore) and their GE twins.
constexpr std::pair<std::string_view, std::string_view> kMindSporeFormats[] = {
    {"UNKNOWN_", "UNDEFINED"},
    {"DEFAULT_", "DefaultFormat"},
    {"NC1KHKWHWC0_", "NC1KHKWHWC0"},
    {"ND_", "ND"},
    {"NCHW_", "NCHW"},
    {"NHWC_", "NHWC"},
    {"HWCN_", "HWCN"},
    {"NC1HWC0_", "NC1HWC0"},
    {"FRAC_Z_", "FracZ"},
    {"C1HWNCOC0_", "C1HWNCoC0"},
    {"FRAC_NZ_", "FRACTAL_NZ"},
    {"NC1HWC0_C04_", "NC1HWC0_C04"},
    {"FRACTAL_Z_C04_", "FRACTAL_Z_C04"},
    {"NDHWC_", "NDHWC"},
    {"FRACTAL_ZN_LSTM_", "FRACTAL_ZN_LSTM"},
    {"FRACTAL_ZN_RNN_", "FRACTAL_ZN_RNN"},
    {"ND_RNN_BIAS_", "ND_RNN_BIAS"},
    {"NDC1HWC0_", "NDC1HWC0"},
    {"NCDHW_", "NCDHW"},
    {"FRACTAL_Z_3D_", "FRACTAL_Z_3D"},
    {"DHWNC_", "DHWNC"},
    {"DHWCN_", "DHWCN"},
};

// geDataTypeMap: GE's DataType names (0-41, UINT32_MAX) and MindSpore's TypeIds (229-246, a
// trailing underscore), each read as the name the cost model's byte sizes use (float32, float16,
// bfloat16, int8, ...; cost/cost_model_memory.cc). GE's FLOAT is float32 and DOUBLE float64.
constexpr std::pair<std::string_view, std::string_view> kDtypes[] = {
    {"FLOAT", "float32"},
    {"FLOAT16", "float16"},
    {"INT8", "int8"},
    {"INT32", "int32"},
    {"UINT8", "uint8"},
    {"INT16", "int16"},
    {"UINT16", "uint16"},
    {"UINT32", "uint32"},
    {"INT64", "int64"},
    {"UINT64", "uint64"},
    {"DOUBLE", "float64"},
    {"BOOL", "bool"},
    {"STRING", "string"},
    {"DUAL_SUB_INT8", "dual_sub_int8"},
    {"DUAL_SUB_UINT8", "dual_sub_uint8"},
    {"COMPLEX64", "complex64"},
    {"COMPLEX128", "complex128"},
    {"QINT8", "qint8"},
    {"QINT16", "qint16"},
    {"QINT32", "qint32"},
    {"QUINT8", "quint8"},
    {"QUINT16", "quint16"},
    {"RESOURCE", "resource"},
    {"STRING_REF", "string_ref"},
    {"DUAL", "dual"},
    {"DT_VARIANT", "variant"},
    {"DT_BF16", "bfloat16"},
    {"DT_UNDEFINED", "undefined"},
    {"DT_INT4", "int4"},
    {"DT_UINT1", "uint1"},
    {"DT_INT2", "int2"},
    {"DT_UINT2", "uint2"},
    {"DT_COMPLEX32", "complex32"},
    {"DT_HIFLOAT8", "hifloat8"},
    {"DT_FLOAT8_E5M2", "float8_e5m2"},
    {"DT_FLOAT8_E4M3FN", "float8_e4m3fn"},
    {"DT_FLOAT8_E8M0", "float8_e8m0"},
    {"DT_FLOAT6_E3M2", "float6_e3m2"},
    {"DT_FLOAT6_E2M3", "float6_e2m3"},
    {"DT_FLOAT4_E2M1", "float4_e2m1"},
    {"DT_FLOAT4_E1M2", "float4_e1m2"},
    {"UNDEFINED", "undefined"},
    // MindSpore's TypeIds; the generic INT_ / UINT_ / FLOAT_ keep their unsized names.
    {"BOOL_", "bool"},
    {"INT_", "int"},
    {"INT8_", "int8"},
    {"INT16_", "int16"},
    {"INT32_", "int32"},
    {"INT64_", "int64"},
    {"UINT_", "uint"},
    {"UINT8_", "uint8"},
    {"UINT16_", "uint16"},
    {"UINT32_", "uint32"},
    {"UINT64_", "uint64"},
    {"FLOAT_", "float"},
    {"FLOAT16_", "float16"},
    {"FLOAT32_", "float32"},
    {"FLOAT64_", "float64"},
};

}  // namespace

bool IsDeviceFormat(std::string_view format) {
  for (std::string_view f : kFormats) {
    if (f == format) return true;
  }
  return false;
}

Expected<std::string> FormatFromCann(std::string_view cann) {
  std::string_view base = cann;
  // msprof appends a sub-format (the group count of a grouped convolution's weight) as ":N".
  if (const size_t colon = base.find(':'); colon != std::string_view::npos) base = base.substr(0, colon);
  // Older CANN releases print the enum's own names, FORMAT_ND, FORMAT_NC1HWC0, ...
  if (base.starts_with("FORMAT_")) base.remove_prefix(7);
  for (const auto& [ms, ge] : kMindSporeFormats) {
    if (ms == base) return std::string(ge);
  }
  // The cost model and the calibration CSV name the convolution weight layout FracZ.
  if (base == "FRACTAL_Z") return std::string("FracZ");
  if (IsDeviceFormat(base)) return std::string(base);
  return Status::InvalidArgument(fmt::format("unknown format '{}'", cann));
}

Expected<std::string> DtypeFromCann(std::string_view cann) {
  for (const auto& [name, dtype] : kDtypes) {
    if (name == cann) return std::string(dtype);
  }
  return Status::InvalidArgument(fmt::format("unknown data type '{}'", cann));
}

}  // namespace npugap::analysis::perf
