// Output comparison at the ONNX backend tests' tolerance: |actual - expected| <= atol + rtol*|expected|,
// NaN equal to NaN, integers / bools / strings exact.
#pragma once

#include <string>

#include "npugap/ir/tensor.h"

namespace npugap::exec {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct CompareResult {
  bool match = false;
  std::string reason;       // empty when matching; else the first difference in words
  double max_abs_error = 0;
  int64_t mismatches = 0;
};

CompareResult CompareTensors(const ir::Tensor& actual, const ir::Tensor& expected, Tolerance tol = {});

// Element i as double (float16/bfloat16 decoded); for statistics and comparisons.
double ElementAsDouble(const ir::Tensor& t, int64_t i);

}  // namespace npugap::exec
