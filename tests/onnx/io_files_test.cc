#include "npugap/onnx/io_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "npugap/onnx/input_files.h"

namespace npugap::onnx_import {
namespace fs = std::filesystem;

class IoFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("npugap_io_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(IoFilesTest, NpyRoundTripsShapeDtypeAndValues) {
  ir::Tensor t = ir::Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(WriteNpy(Path("a.npy"), t).ok());
  auto back = ReadNpy(Path("a.npy"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->shape(), (ir::Shape{2, 3}));
  EXPECT_EQ(back->data<float>()[5], 6.0f);
  ir::Tensor v = ir::Tensor::FromVector<int64_t>({3}, {7, 8, 9});
  ASSERT_TRUE(WriteNpy(Path("v.npy"), v).ok());
  EXPECT_EQ(ReadNpy(Path("v.npy"))->shape(), (ir::Shape{3}));
  ir::Tensor s = ir::Tensor::FromVector<double>({}, {2.5});
  ASSERT_TRUE(WriteNpy(Path("s.npy"), s).ok());
  EXPECT_EQ(ReadNpy(Path("s.npy"))->rank(), 0);
  EXPECT_FALSE(fs::exists(Path("a.npy.tmp-npugap")));
}

TEST_F(IoFilesTest, BadNpyFilesAreErrorsNamingTheFile) {
  {
    std::ofstream out(Path("junk.npy"));
    out << "not numpy";
  }
  auto r = ReadNpy(Path("junk.npy"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("junk.npy"), std::string::npos);
  EXPECT_FALSE(ReadNpy(Path("missing.npy")).ok());
  // Truncated data.
  ASSERT_TRUE(WriteNpy(Path("t.npy"), ir::Tensor::FromVector<float>({4}, {1, 2, 3, 4})).ok());
  fs::resize_file(Path("t.npy"), fs::file_size(Path("t.npy")) - 4);
  EXPECT_FALSE(ReadNpy(Path("t.npy")).ok());
}

TEST_F(IoFilesTest, InputFilesMustMatchTheModelsInputs) {
  ir::Graph g;
  ir::Value x;
  x.name = "x";
  x.type = {ir::DType::kFloat32, std::vector<ir::Dim>{ir::Dim::Static(2)}};
  g.inputs.push_back(g.AddValue(x));
  ASSERT_TRUE(WriteNpy(Path("x.npy"), ir::Tensor::FromVector<float>({2}, {1, 2})).ok());
  EXPECT_TRUE(LoadInputFiles(g, {Path("x.npy")}).ok());
  EXPECT_FALSE(LoadInputFiles(g, {Path("x.npy"), Path("x.npy")}).ok());  // one too many
  EXPECT_FALSE(LoadInputFiles(g, {Path("nope.npy")}).ok());
  EXPECT_FALSE(LoadInputFiles(g, {Path("x.txt")}).ok());
}

}  // namespace npugap::onnx_import
