// CheckpointWriter / CheckpointReader: the HDF5 container of a restart
// checkpoint (layout in docs/file_formats.md, "Restart checkpoints").
//
// A checkpoint is a tree of named one-dimensional datasets of fixed element
// types (float64, int64, uint64, uint32, uint8) plus string and number
// attributes of the root group. Whoever owns a piece of state writes it under
// its own group and reads it back by the same names; the file knows nothing of
// model parts or solvers. Values are written as their bytes, so a restored
// double is bitwise the saved one.
//
// The writer writes to "<path>.tmp.<pid>" and Commit() renames it over <path>
// (rename is atomic on one file system): a crash during the write leaves the
// previous checkpoint untouched. The reader refuses a file that is not HDF5 or
// is truncated, one without the layout attribute, and one of another layout
// version, each with an error naming the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

// The layout version this build writes and the only one it reads. Raise it
// whenever a dataset changes meaning, so old files are refused instead of
// misread.
inline constexpr std::int64_t kCheckpointLayoutVersion = 1;
inline constexpr const char* kCheckpointFormatName = "tessera-checkpoint";

class CheckpointWriter {
 public:
  explicit CheckpointWriter(std::string path);
  ~CheckpointWriter();  // an uncommitted file is removed
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Datasets; intermediate groups are created. Writing a name twice is an error.
  void Write(const std::string& name, const std::vector<double>& values);
  void Write(const std::string& name, const std::vector<std::int64_t>& values);
  void Write(const std::string& name, const std::vector<std::uint64_t>& values);
  void Write(const std::string& name, const std::vector<std::uint32_t>& values);
  void Write(const std::string& name, const std::vector<std::uint8_t>& values);
  void WriteBytes(const std::string& name, const void* data, std::size_t bytes);
  void WriteString(const std::string& name, const std::string& text);

  // Attributes of the root group.
  void SetAttribute(const std::string& name, const std::string& value);
  void SetAttribute(const std::string& name, std::int64_t value);
  void SetAttribute(const std::string& name, double value);

  // Closes the temporary file and renames it to the final path.
  void Commit();
  const std::string& Path() const { return path_; }

 private:
  void WriteRaw(const std::string& name, std::int64_t type, const void* data, std::size_t count);
  std::string path_, temporary_;
  std::int64_t file_ = -1;  // hid_t
  bool committed_ = false;
};

class CheckpointReader {
 public:
  explicit CheckpointReader(std::string path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  bool Has(const std::string& name) const;
  // The dataset as the given element type; a missing dataset or one of another
  // element type is an error naming the file and the dataset.
  std::vector<double> ReadDoubles(const std::string& name) const;
  std::vector<std::int64_t> ReadInt64(const std::string& name) const;
  std::vector<std::uint64_t> ReadUInt64(const std::string& name) const;
  std::vector<std::uint32_t> ReadUInt32(const std::string& name) const;
  std::vector<std::uint8_t> ReadBytes(const std::string& name) const;
  // Reads exactly `bytes` bytes into `data` (error if the dataset's size differs).
  void ReadBytesInto(const std::string& name, void* data, std::size_t bytes) const;
  std::string ReadString(const std::string& name) const;
  // The names directly below a group (sorted).
  std::vector<std::string> List(const std::string& group) const;
  // Every dataset below a group, as full paths (sorted).
  std::vector<std::string> ListDatasets(const std::string& group) const;
  // A dataset's bytes whatever its element type (comparing two checkpoints).
  std::vector<std::uint8_t> ReadRawBytes(const std::string& name) const;

  bool HasAttribute(const std::string& name) const;
  std::string StringAttribute(const std::string& name) const;
  std::int64_t IntAttribute(const std::string& name) const;
  double DoubleAttribute(const std::string& name) const;

  const std::string& Path() const { return path_; }

 private:
  template <class T>
  std::vector<T> ReadTyped(const std::string& name, std::int64_t type, const char* type_name) const;
  std::string path_;
  std::int64_t file_ = -1;  // hid_t
};

}  // namespace tessera
