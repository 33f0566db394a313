// CheckpointWriter / CheckpointReader over the HDF5 C API.
#include "kernel/io/checkpoint_file.h"

#include <hdf5.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "kernel/core/error.h"
#include "kernel/io/hdf5_handles.h"

namespace tessera {

namespace {

static_assert(std::is_same_v<hid_t, std::int64_t>, "hid_t is held as int64 in the header");

using hdf5::Handle;

bool LinkExists(hid_t file, const std::string& path) {
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, pos);
    if (prefix.empty() || prefix == "/") continue;
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return true;
}

}  // namespace

// ---- writer -----------------------------------------------------------------------------------

CheckpointWriter::CheckpointWriter(std::string path) : path_(std::move(path)) {
  temporary_ = path_ + ".tmp." + std::to_string(::getpid());
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
  }
  hdf5::QuietErrors quiet;
  file_ = H5Fcreate(temporary_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file_ < 0)
    TESSERA_ERROR("checkpoint: cannot create ", temporary_, " (for ", path_,
                  "): ", hdf5::LastErrorMessage());
  SetAttribute("format", std::string(kCheckpointFormatName));
  SetAttribute("layout_version", kCheckpointLayoutVersion);
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_) return;
  if (file_ >= 0) H5Fclose(file_);
  std::remove(temporary_.c_str());
}

void CheckpointWriter::WriteRaw(const std::string& name, std::int64_t type, const void* data,
                                std::size_t count) {
  TESSERA_CHECK(!committed_, "checkpoint ", path_, ": writing ", name, " after Commit()");
  hdf5::QuietErrors quiet;
  TESSERA_CHECK(!LinkExists(file_, name), "checkpoint ", path_, ": ", name, " written twice");
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  const hsize_t dims[1] = {static_cast<hsize_t>(count)};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  Handle set(
      H5Dcreate2(file_, name.c_str(), type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!set.valid())
    TESSERA_ERROR("checkpoint ", temporary_, ": creating ", name,
                  " failed: ", hdf5::LastErrorMessage());
  if (count > 0 && H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    TESSERA_ERROR("checkpoint ", temporary_, ": writing ", name,
                  " failed: ", hdf5::LastErrorMessage());
}

void CheckpointWriter::Write(const std::string& name, const std::vector<double>& values) {
  WriteRaw(name, H5T_NATIVE_DOUBLE, values.data(), values.size());
}
void CheckpointWriter::Write(const std::string& name, const std::vector<std::int64_t>& values) {
  WriteRaw(name, H5T_NATIVE_INT64, values.data(), values.size());
}
void CheckpointWriter::Write(const std::string& name, const std::vector<std::uint64_t>& values) {
  WriteRaw(name, H5T_NATIVE_UINT64, values.data(), values.size());
}
void CheckpointWriter::Write(const std::string& name, const std::vector<std::uint32_t>& values) {
  WriteRaw(name, H5T_NATIVE_UINT32, values.data(), values.size());
}
void CheckpointWriter::Write(const std::string& name, const std::vector<std::uint8_t>& values) {
  WriteRaw(name, H5T_NATIVE_UINT8, values.data(), values.size());
}
void CheckpointWriter::WriteBytes(const std::string& name, const void* data, std::size_t bytes) {
  WriteRaw(name, H5T_NATIVE_UINT8, data, bytes);
}
void CheckpointWriter::WriteString(const std::string& name, const std::string& text) {
  WriteRaw(name, H5T_NATIVE_UINT8, text.data(), text.size());
}

namespace {
void RootAttribute(hid_t file, const std::string& path, const std::string& name, hid_t type,
                   const void* data) {
  Handle root(H5Oopen(file, "/", H5P_DEFAULT), H5Oclose);
  if (H5Aexists(root.get(), name.c_str()) > 0) H5Adelete(root.get(), name.c_str());
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attribute(
      H5Acreate2(root.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), type, data) < 0)
    TESSERA_ERROR("checkpoint ", path, ": writing attribute ", name,
                  " failed: ", hdf5::LastErrorMessage());
}
}  // namespace

void CheckpointWriter::SetAttribute(const std::string& name, const std::string& value) {
  hdf5::QuietErrors quiet;
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  const char* text = value.c_str();
  RootAttribute(file_, temporary_, name, type.get(), &text);
}
void CheckpointWriter::SetAttribute(const std::string& name, std::int64_t value) {
  hdf5::QuietErrors quiet;
  RootAttribute(file_, temporary_, name, H5T_NATIVE_INT64, &value);
}
void CheckpointWriter::SetAttribute(const std::string& name, double value) {
  hdf5::QuietErrors quiet;
  RootAttribute(file_, temporary_, name, H5T_NATIVE_DOUBLE, &value);
}

void CheckpointWriter::Commit() {
  TESSERA_CHECK(!committed_, "checkpoint ", path_, ": committed twice");
  {
    hdf5::QuietErrors quiet;
    const herr_t status = H5Fclose(file_);
    file_ = -1;
    if (status < 0)
      TESSERA_ERROR("checkpoint ", temporary_, ": closing failed: ", hdf5::LastErrorMessage());
  }
  std::error_code ec;
  std::filesystem::rename(temporary_, path_, ec);
  if (ec)
    TESSERA_ERROR("checkpoint: renaming ", temporary_, " to ", path_, " failed: ", ec.message());
  committed_ = true;
}

// ---- reader -----------------------------------------------------------------------------------

CheckpointReader::CheckpointReader(std::string path) : path_(std::move(path)) {
  TESSERA_CHECK(std::filesystem::exists(path_), "checkpoint ", path_, " does not exist");
  hdf5::QuietErrors quiet;
  if (H5Fis_hdf5(path_.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    TESSERA_ERROR("checkpoint ", path_,
                  " is not a readable HDF5 file (truncated, damaged or not a checkpoint)");
  }
  file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0)
    TESSERA_ERROR("checkpoint ", path_,
                  " cannot be opened (truncated or damaged?): ", hdf5::LastErrorMessage());
  if (!HasAttribute("format") || StringAttribute("format") != kCheckpointFormatName)
    TESSERA_ERROR("checkpoint ", path_, " is an HDF5 file but not a Tessera checkpoint (no '",
                  kCheckpointFormatName, "' format attribute)");
  TESSERA_CHECK(HasAttribute("layout_version"), "checkpoint ", path_,
                " has no layout_version attribute");
  const std::int64_t version = IntAttribute("layout_version");
  if (version != kCheckpointLayoutVersion)
    TESSERA_ERROR("checkpoint ", path_, " has layout version ", version,
                  "; this build reads only version ", kCheckpointLayoutVersion,
                  " (write the checkpoint again with a matching Tessera)");
}

CheckpointReader::~CheckpointReader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool CheckpointReader::Has(const std::string& name) const {
  hdf5::QuietErrors quiet;
  const bool exists = LinkExists(file_, name);
  H5Eclear2(H5E_DEFAULT);
  return exists;
}

template <class T>
std::vector<T> CheckpointReader::ReadTyped(const std::string& name, std::int64_t type,
                                           const char* type_name) const {
  hdf5::QuietErrors quiet;
  if (!LinkExists(file_, name))
    TESSERA_ERROR("checkpoint ", path_, " has no dataset ", name,
                  " (written by another deck or an older Tessera?)");
  Handle set(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.valid())
    TESSERA_ERROR("checkpoint ", path_, ": opening ", name, ": ", hdf5::LastErrorMessage());
  Handle stored(H5Dget_type(set.get()), H5Tclose);
  Handle wanted(H5Tget_native_type(stored.get(), H5T_DIR_ASCEND), H5Tclose);
  if (H5Tequal(wanted.get(), type) <= 0)
    TESSERA_ERROR("checkpoint ", path_, ": dataset ", name, " is not of type ", type_name);
  Handle space(H5Dget_space(set.get()), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count < 0) TESSERA_ERROR("checkpoint ", path_, ": ", name, ": ", hdf5::LastErrorMessage());
  std::vector<T> values(static_cast<std::size_t>(count));
  if (count > 0 && H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    TESSERA_ERROR("checkpoint ", path_, ": reading ", name,
                  " failed (truncated or damaged file?): ", hdf5::LastErrorMessage());
  return values;
}

std::vector<double> CheckpointReader::ReadDoubles(const std::string& name) const {
  return ReadTyped<double>(name, H5T_NATIVE_DOUBLE, "float64");
}
std::vector<std::int64_t> CheckpointReader::ReadInt64(const std::string& name) const {
  return ReadTyped<std::int64_t>(name, H5T_NATIVE_INT64, "int64");
}
std::vector<std::uint64_t> CheckpointReader::ReadUInt64(const std::string& name) const {
  return ReadTyped<std::uint64_t>(name, H5T_NATIVE_UINT64, "uint64");
}
std::vector<std::uint32_t> CheckpointReader::ReadUInt32(const std::string& name) const {
  return ReadTyped<std::uint32_t>(name, H5T_NATIVE_UINT32, "uint32");
}
std::vector<std::uint8_t> CheckpointReader::ReadBytes(const std::string& name) const {
  return ReadTyped<std::uint8_t>(name, H5T_NATIVE_UINT8, "uint8");
}
void CheckpointReader::ReadBytesInto(const std::string& name, void* data, std::size_t bytes) const {
  const std::vector<std::uint8_t> values = ReadBytes(name);
  TESSERA_CHECK(values.size() == bytes, "checkpoint ", path_, ": ", name, " holds ", values.size(),
                " bytes where ", bytes, " were expected");
  if (bytes) std::memcpy(data, values.data(), bytes);
}
std::string CheckpointReader::ReadString(const std::string& name) const {
  const std::vector<std::uint8_t> bytes = ReadBytes(name);
  return std::string(bytes.begin(), bytes.end());
}

namespace {
herr_t CollectName(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> CheckpointReader::List(const std::string& group) const {
  std::vector<std::string> names;
  if (!Has(group)) return names;
  hdf5::QuietErrors quiet;
  Handle g(H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) TESSERA_ERROR("checkpoint ", path_, ": ", group, " is not a group");
  H5Literate(g.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, CollectName, &names);
  return names;
}

std::vector<std::string> CheckpointReader::ListDatasets(const std::string& group) const {
  std::vector<std::string> datasets;
  for (const std::string& name : List(group)) {
    const std::string path = (group == "/" ? "" : group) + "/" + name;
    hdf5::QuietErrors quiet;
    Handle object(H5Oopen(file_, path.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid())
      TESSERA_ERROR("checkpoint ", path_, ": opening ", path, ": ", hdf5::LastErrorMessage());
    const H5I_type_t type = H5Iget_type(object.get());
    if (type == H5I_DATASET) {
      datasets.push_back(path);
    } else if (type == H5I_GROUP) {
      const auto below = ListDatasets(path);
      datasets.insert(datasets.end(), below.begin(), below.end());
    }
  }
  return datasets;
}

std::vector<std::uint8_t> CheckpointReader::ReadRawBytes(const std::string& name) const {
  hdf5::QuietErrors quiet;
  if (!LinkExists(file_, name)) TESSERA_ERROR("checkpoint ", path_, " has no dataset ", name);
  Handle set(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.valid())
    TESSERA_ERROR("checkpoint ", path_, ": opening ", name, ": ", hdf5::LastErrorMessage());
  Handle stored(H5Dget_type(set.get()), H5Tclose);
  Handle native(H5Tget_native_type(stored.get(), H5T_DIR_ASCEND), H5Tclose);
  Handle space(H5Dget_space(set.get()), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count) * H5Tget_size(native.get()));
  if (count > 0 &&
      H5Dread(set.get(), native.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0)
    TESSERA_ERROR("checkpoint ", path_, ": reading ", name, ": ", hdf5::LastErrorMessage());
  return bytes;
}

bool CheckpointReader::HasAttribute(const std::string& name) const {
  hdf5::QuietErrors quiet;
  const htri_t exists = H5Aexists_by_name(file_, "/", name.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  return exists > 0;
}

std::string CheckpointReader::StringAttribute(const std::string& name) const {
  hdf5::QuietErrors quiet;
  Handle attribute(H5Aopen_by_name(file_, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid())
    TESSERA_ERROR("checkpoint ", path_, " has no attribute ", name, ": ", hdf5::LastErrorMessage());
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING)
    TESSERA_ERROR("checkpoint ", path_, ": attribute ", name, " is not a string");
  Handle memtype(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(memtype.get(), H5T_VARIABLE);
  H5Tset_cset(memtype.get(), H5T_CSET_UTF8);
  if (H5Tis_variable_str(type.get()) <= 0)
    TESSERA_ERROR("checkpoint ", path_, ": attribute ", name, " is not a variable-length string");
  char* text = nullptr;
  if (H5Aread(attribute.get(), memtype.get(), &text) < 0)
    TESSERA_ERROR("checkpoint ", path_, ": reading attribute ", name, ": ",
                  hdf5::LastErrorMessage());
  std::string value = text ? text : "";
  H5free_memory(text);
  return value;
}

std::int64_t CheckpointReader::IntAttribute(const std::string& name) const {
  hdf5::QuietErrors quiet;
  Handle attribute(H5Aopen_by_name(file_, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::int64_t value = 0;
  if (!attribute.valid() || H5Aread(attribute.get(), H5T_NATIVE_INT64, &value) < 0)
    TESSERA_ERROR("checkpoint ", path_, ": reading integer attribute ", name, ": ",
                  hdf5::LastErrorMessage());
  return value;
}

double CheckpointReader::DoubleAttribute(const std::string& name) const {
  hdf5::QuietErrors quiet;
  Handle attribute(H5Aopen_by_name(file_, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  double value = 0.0;
  if (!attribute.valid() || H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0)
    TESSERA_ERROR("checkpoint ", path_, ": reading number attribute ", name, ": ",
                  hdf5::LastErrorMessage());
  return value;
}

}  // namespace tessera
