#include "npugap/exec/executor.h"

#include <gtest/gtest.h>

#include "../onnx/model_builder.h"
#include "npugap/onnx/import.h"

namespace npugap::exec {
namespace {

using testing::ModelBuilder;

ir::Model LoadOrDie(const ModelBuilder& b) {
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "test.onnx");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

// y = Relu(x + b), z = Neg(y): two outputs, one intermediate.
ModelBuilder SmallModel() {
  ModelBuilder b;
  b.Input("x", {-1, 2}).Output("y", {-1, 2}).Output("z", {-1, 2});
  b.FloatInitializer("b", {2}, {1.0f, -1.0f});
  b.Node("Add", {"x", "b"}, {"sum"}, "add").Node("Relu", {"sum"}, {"y"}, "relu").Node("Neg", {"y"}, {"z"}, "neg");
  return b;
}

}  // namespace

TEST(ExecutorTest, RunsNodesInOrderAndReturnsEveryOutput) {
  const ir::Model m = LoadOrDie(SmallModel());
  auto exec = Executor::Create(m, {1});
  ASSERT_TRUE(exec.ok()) << exec.status().message();
  auto out = exec->Run({ir::Tensor::FromVector<float>({2, 2}, {1, 2, -3, 0.5f})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  const std::vector<float> y = {2, 1, 0, 0};  // relu([2, 1, -2, -0.5])
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ((*out)[0].data<float>()[i], y[i]);
    EXPECT_FLOAT_EQ((*out)[1].data<float>()[i], -y[i]);
  }
}

TEST(ExecutorTest, ObserverSeesEveryNode) {
  const ir::Model m = LoadOrDie(SmallModel());
  auto exec = Executor::Create(m, {1});
  ASSERT_TRUE(exec.ok());
  std::vector<std::string> seen;
  auto out = exec->Run({ir::Tensor::FromVector<float>({1, 2}, {1, 2})},
                       [&](const ir::Node& n, const std::vector<ir::Tensor>& outs) {
                         seen.push_back(n.name);
                         EXPECT_TRUE(outs[0].defined());
                       });
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"add", "relu", "neg"}));
}

TEST(ExecutorTest, InputOfWrongTypeOrShapeNamesTheInput) {
  const ir::Model m = LoadOrDie(SmallModel());
  auto exec = Executor::Create(m, {1});
  ASSERT_TRUE(exec.ok());
  auto wrong_dtype = exec->Run({ir::Tensor::FromVector<int64_t>({1, 2}, {1, 2})});
  ASSERT_FALSE(wrong_dtype.ok());
  EXPECT_NE(wrong_dtype.status().message().find("input 'x'"), std::string::npos);
  auto wrong_shape = exec->Run({ir::Tensor::FromVector<float>({1, 3}, {1, 2, 3})});
  ASSERT_FALSE(wrong_shape.ok());
  EXPECT_NE(wrong_shape.status().message().find("expected float32[batchx2]"), std::string::npos);
  EXPECT_FALSE(exec->Run({}).ok());
}

TEST(ExecutorTest, LoopRunsItsBodyWithOuterScopeValues) {
  // Loop 3 times: acc = acc + x, where x comes from the outer graph; also scan out each acc.
  ModelBuilder b;
  b.Input("x", {2}).Output("acc_final", {2}).Output("accs", {3, 2});
  b.proto().mutable_graph()->add_initializer()->CopyFrom([] {
    onnx::TensorProto t;
    t.set_name("trips");
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_int64_data(3);
    return t;
  }());
  b.FloatInitializer("acc0", {2}, {0, 0});
  auto* loop = b.proto().mutable_graph()->add_node();
  loop->set_op_type("Loop");
  loop->set_name("loop");
  for (const char* in : {"trips", "", "acc0"}) loop->add_input(in);
  loop->add_output("acc_final");
  loop->add_output("accs");
  auto* attr = loop->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  auto* body = attr->mutable_g();
  body->set_name("body");
  auto add_io = [](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const char* name, int elem) {
    auto* vi = list->Add();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  };
  add_io(body->mutable_input(), "i", onnx::TensorProto::INT64);
  add_io(body->mutable_input(), "cond_in", onnx::TensorProto::BOOL);
  add_io(body->mutable_input(), "acc", onnx::TensorProto::FLOAT);
  auto* n1 = body->add_node();
  n1->set_op_type("Add");
  n1->add_input("acc");
  n1->add_input("x");
  n1->add_output("acc_next");
  auto* n2 = body->add_node();
  n2->set_op_type("Identity");
  n2->add_input("cond_in");
  n2->add_output("cond_out");
  auto* n3 = body->add_node();
  n3->set_op_type("Identity");
  n3->add_input("acc_next");
  n3->add_output("scan_out");
  add_io(body->mutable_output(), "cond_out", onnx::TensorProto::BOOL);
  add_io(body->mutable_output(), "acc_next", onnx::TensorProto::FLOAT);
  add_io(body->mutable_output(), "scan_out", onnx::TensorProto::FLOAT);
  const ir::Model m = LoadOrDie(b);
  auto exec = Executor::Create(m, {1});
  ASSERT_TRUE(exec.ok()) << exec.status().message();
  auto out = exec->Run({ir::Tensor::FromVector<float>({2}, {1, 10})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[1], 30.0f);
  EXPECT_EQ((*out)[1].shape(), (ir::Shape{3, 2}));
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[2], 2.0f);  // second iteration, first element
}

}  // namespace npugap::exec
