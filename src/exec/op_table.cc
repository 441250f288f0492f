#include "npugap/exec/op_table.h"

namespace npugap::exec {
namespace {

bool SameDomain(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view{} : d; };
  return norm(a) == norm(b);
}

}  // namespace

const OpTable& OpTable::Default() {
  static const OpTable table = [] {
    OpTable t;
    for (auto family : {ElementwiseOps(), ActivationOps(), TensorOps(), IndexingOps(), ReductionOps(),
                        NormalizationOps(), NnOps(), QuantOps(), ControlFlowOps(), RecurrentOps(), LinalgOps(), SignalOps(), DetectionOps(),
                        TextOps(), TrainingOps()}) {
      t.rows_.insert(t.rows_.end(), family.begin(), family.end());
    }
    return t;
  }();
  return table;
}

const OpRow* OpTable::Find(std::string_view domain, std::string_view op_type, int64_t opset) const {
  for (const OpRow& r : rows_) {
    if (r.op_type == op_type && SameDomain(r.domain, domain) && opset >= r.since_version &&
        opset <= r.until_version) {
      return &r;
    }
  }
  return nullptr;
}

bool OpTable::Knows(std::string_view domain, std::string_view op_type) const {
  for (const OpRow& r : rows_) {
    if (r.op_type == op_type && SameDomain(r.domain, domain)) return true;
  }
  return false;
}

}  // namespace npugap::exec
