// Checkpoint files: network weights plus Protobuf metadata (proto/checkpoint.proto), in a
// small container of our own, written atomically.
//
// Layout (integers little-endian):
//   8 bytes   magic "XQZCKPT1"
//   4 bytes   container version (2)
//   4 bytes   metadata length M
//   4 bytes   crc32 of the 16 bytes above followed by the M metadata bytes
//   M bytes   CheckpointMeta (architecture, step, creation time, label and plane counts, and
//             the list of sections with their sizes and crc32)
//   sections  the data of each section, in the metadata's order: "weights" (torch::save of
//             the module, always present), then any extra ones the caller adds (the trainer
//             stores optimiser and RNG state this way)
//   8 bytes   end marker "XQZEND\0\0"
// Version 1 (written before the header crc32 existed) is the same without the crc32 field;
// it is still read, with its metadata unchecked. No single flipped bit turns a version 2 file
// into a version 1 file (2 and 1 differ in two bits), so every byte of a version 2 file is
// checked: the magic, the version, the header crc32 (length and metadata), the exact size,
// each section's crc32 and the end marker.
// Writing goes to "<path>.tmp", is flushed and fsync'ed, then renamed over <path>, so a
// reader never sees half a file. Loading checks the magic (a file of another kind), the
// version, the header crc32 (corruption of the metadata: the step, the architecture, the
// section list), the exact file size against the metadata (truncation), each section's crc32
// (corruption) and the architecture (naming every differing field) before touching weights.
// Every failure throws CheckpointError with the path and what is wrong.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "checkpoint.pb.h"
#include "nn/network.h"

namespace xq::nn {

struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using CheckpointSections = std::map<std::string, std::string>;  // name -> bytes ("weights" excluded)

// Writes `net` (any device or precision; stored as float32 CPU tensors) with its architecture,
// `step` and `note`.
void save_checkpoint(const std::string& path, Network& net, int64_t step, const std::string& note = "",
                     const CheckpointSections& extra = {});

// A network's weights and buffers as the "weights" section stores them (float32, CPU), for a
// caller that keeps a second network in a section of its own (the trainer's trained weights
// beside their average), and back: `bytes` (section `section` of checkpoint `path`, named in
// the CheckpointError when they do not load) into `net` of the same architecture.
std::string weights_bytes(Network& net);
void load_weights_bytes(const std::string& path, const std::string& section, const std::string& bytes, Network& net);

// Reads and validates the container; returns the metadata and (optionally) the raw sections,
// "weights" included.
xqzero::CheckpointMeta read_checkpoint(const std::string& path, CheckpointSections* sections = nullptr);

// Loads weights into `net`, whose architecture must equal the checkpoint's.
xqzero::CheckpointMeta load_checkpoint(const std::string& path, Network& net, CheckpointSections* extra = nullptr);

// Builds a network of the checkpoint's own architecture (on CPU) and loads it.
Network load_network(const std::string& path, xqzero::CheckpointMeta* meta = nullptr);

}  // namespace xq::nn
