#include "npugap/onnx/io_files.h"

#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "npugap/onnx/tensor_proto.h"

namespace npugap::onnx_import {
namespace fs = std::filesystem;
using ir::DType;

namespace {

Expected<std::string> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Status::NotFound(fmt::format("{}: no such file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::map<std::string, DType>& NpyTypes() {
  static const std::map<std::string, DType> types = {
      {"f4", DType::kFloat32}, {"f8", DType::kFloat64}, {"f2", DType::kFloat16}, {"i1", DType::kInt8},
      {"i2", DType::kInt16},   {"i4", DType::kInt32},   {"i8", DType::kInt64},   {"u1", DType::kUInt8},
      {"u2", DType::kUInt16},  {"u4", DType::kUInt32},  {"u8", DType::kUInt64},  {"b1", DType::kBool},
  };
  return types;
}

// Parses an .npy image held in memory. `what` names it in errors.
Expected<ir::Tensor> ParseNpy(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& why) { return Status::InvalidArgument(fmt::format("{}: not a valid .npy file ({})", what, why)); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bad("missing magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len;
  size_t offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    offset = 10;
  } else {
    if (bytes.size() < 12) return bad("short header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  }
  if (offset + header_len > bytes.size()) return bad("header past end of file");
  const std::string header = bytes.substr(offset, header_len);
  auto field = [&](const std::string& key) -> std::string {
    const auto k = header.find("'" + key + "'");
    if (k == std::string::npos) return {};
    auto start = header.find(':', k) + 1;
    while (start < header.size() && header[start] == ' ') ++start;
    if (header[start] == '(') return header.substr(start + 1, header.find(')', start) - start - 1);
    if (header[start] == '\'') return header.substr(start + 1, header.find('\'', start + 1) - start - 1);
    return header.substr(start, header.find_first_of(",}", start) - start);
  };
  const std::string descr = field("descr");
  if (descr.size() < 3) return bad("no descr");
  if (descr[0] == '>') return Status::Unsupported(fmt::format("{}: big-endian arrays", what));
  auto type_it = NpyTypes().find(descr.substr(1));
  if (type_it == NpyTypes().end()) return Status::Unsupported(fmt::format("{}: NumPy dtype '{}'", what, descr));
  if (field("fortran_order").find("True") != std::string::npos) {
    return Status::Unsupported(fmt::format("{}: Fortran-ordered arrays", what));
  }
  ir::Shape shape;
  const std::string dims = field("shape");
  size_t pos = 0;
  while (pos < dims.size()) {
    const auto comma = dims.find(',', pos);
    std::string tok = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    tok.erase(0, tok.find_first_not_of(' '));
    if (!tok.empty()) {
      try {
        shape.push_back(std::stoll(tok));
      } catch (const std::exception&) {
        return bad("shape '" + dims + "'");
      }
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  auto tensor = ir::Tensor::Create(type_it->second, shape);
  if (!tensor.ok()) return tensor.status().WithContext(what);
  const size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset < tensor->nbytes()) return bad("data shorter than the shape needs");
  if (tensor->nbytes() > 0) std::memcpy(tensor->raw_data(), bytes.data() + data_offset, tensor->nbytes());
  return tensor;
}

uint32_t Le32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(b[at + static_cast<size_t>(i)])) << (8 * i);
  return v;
}
uint16_t Le16(const std::string& b, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8);
}

}  // namespace

Expected<std::vector<ir::Tensor>> ReadTensorProtoDir(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound(fmt::format("{}: no such folder", dir));
  std::vector<ir::Tensor> tensors;
  for (int i = 0;; ++i) {
    const std::string path = (fs::path(dir) / fmt::format("{}_{}.pb", prefix, i)).string();
    if (!fs::exists(path, ec)) break;
    NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, ReadTensorProtoFile(path));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

Expected<ir::Tensor> ReadNpy(const std::string& path) {
  NPUGAP_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  return ParseNpy(bytes, path);
}

Expected<std::vector<std::pair<std::string, ir::Tensor>>> ReadNpz(const std::string& path) {
  NPUGAP_ASSIGN_OR_RETURN(std::string zip, ReadWholeFile(path));
  auto bad = [&](const std::string& why) { return Status::InvalidArgument(fmt::format("{}: not a valid .npz file ({})", path, why)); };
  std::vector<std::pair<std::string, ir::Tensor>> arrays;
  size_t at = 0;
  // Walk the local file headers; np.savez writes sizes in them (no data descriptors).
  while (at + 30 <= zip.size() && Le32(zip, at) == 0x04034b50u) {
    const uint16_t method = Le16(zip, at + 8);
    const uint32_t compressed = Le32(zip, at + 18);
    const uint32_t uncompressed = Le32(zip, at + 22);
    const uint16_t name_len = Le16(zip, at + 26);
    const uint16_t extra_len = Le16(zip, at + 28);
    const size_t data_at = at + 30 + name_len + extra_len;
    if (compressed == 0xffffffffu) return Status::Unsupported(fmt::format("{}: ZIP64 archives", path));
    if (data_at + compressed > zip.size()) return bad("entry past end of file");
    std::string name = zip.substr(at + 30, name_len);
    std::string data;
    if (method == 0) {
      data = zip.substr(data_at, compressed);
    } else if (method == 8) {
      data.resize(uncompressed);
      z_stream zs{};
      if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return bad("zlib init");
      zs.next_in = reinterpret_cast<Bytef*>(zip.data() + data_at);
      zs.avail_in = compressed;
      zs.next_out = reinterpret_cast<Bytef*>(data.data());
      zs.avail_out = uncompressed;
      const int rc = inflate(&zs, Z_FINISH);
      inflateEnd(&zs);
      if (rc != Z_STREAM_END) return bad("corrupt deflate data in '" + name + "'");
    } else {
      return Status::Unsupported(fmt::format("{}: ZIP compression method {}", path, method));
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, ParseNpy(data, path + ":" + name));
    arrays.emplace_back(name, std::move(t));
    at = data_at + compressed;
  }
  if (arrays.empty()) return bad("no arrays");
  return arrays;
}

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp-npugap";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IoError(fmt::format("{}: cannot write", path));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      return Status::IoError(fmt::format("{}: write failed", path));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return Status::IoError(fmt::format("{}: {}", path, ec.message()));
  }
  return Status::Ok();
}

Status WriteNpy(const std::string& path, const ir::Tensor& tensor) {
  std::string descr;
  for (const auto& [code, dtype] : NpyTypes()) {
    if (dtype == tensor.dtype()) descr = (code == "b1" || code[1] == '1' ? "|" : "<") + code;
  }
  if (descr.empty()) return Status::Unsupported(fmt::format("{}: cannot write {} as .npy", path, ir::DTypeName(tensor.dtype())));
  // Python tuple syntax: "()", "(3,)", "(2, 3)".
  std::string shape;
  for (size_t i = 0; i < tensor.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  if (tensor.rank() == 1) shape += ',';
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, shape);
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  return WriteFileAtomically(path, bytes);
}

}  // namespace npugap::onnx_import
