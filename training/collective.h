// The process group of data-parallel training: N trainer processes (ranks) that meet at a
// rendezvous and then exchange tensors. Built on LibTorch's own distributed layer, c10d: a
// TCPStore served by rank 0 at MASTER_ADDR:MASTER_PORT, and ProcessGroupGloo for the
// collectives. A CUDA trainer's tensors go over ProcessGroupNCCL, on the device, in builds
// against a CUDA LibTorch whose NCCL headers were found (XQZERO_HAVE_NCCL); elsewhere they
// are staged through the host and go over Gloo.
//
// This header is torch-free: the scalar collectives the training loop needs to agree on
// whether to step or stop. The tensor collectives of the trainer (gradients, weights) are in
// training/collective_tensors.h.
//
// Failure is loud and bounded: a peer that never arrives fails the rendezvous after the
// timeout; a peer that dies (kill -9 included) fails the next collective of the others, at
// once when its sockets close and at the latest after the timeout. Every failure is a
// DistributedError that names this rank and what failed.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace xq::training {

class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DistributedOptions {
  int world_size = 1;  // 1 = not distributed
  int rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  double timeout_s = 1800;  // rendezvous and every collective
  int local_rank = -1;      // this rank's number on its machine (torchrun's LOCAL_RANK); -1: rank
  bool nccl = false;        // the trainer's tensors go over NCCL (rank_device decides)
  bool enabled() const { return world_size > 1; }
};

// torchrun's variables WORLD_SIZE, RANK, MASTER_ADDR, MASTER_PORT, LOCAL_RANK, where set, into `o`.
// Throws DistributedError naming the variable when one is not a number in range.
void read_distributed_environment(DistributedOptions& o);
// "HOST:PORT" into o.master_addr and o.master_port; throws DistributedError naming `text`.
void parse_master(const std::string& text, DistributedOptions& o);
// Throws DistributedError naming the bad field (world size 1..1024, rank 0..world-1, port
// 1..65535, timeout > 0).
void validate_distributed(const DistributedOptions& o);

// Whether this build has c10d with Gloo (the headers of libgloo-dev were found).
bool distributed_available();
// Whether this build carries CUDA tensors over NCCL (else through the host over Gloo).
bool nccl_available();

// The device a rank trains on, and whether its tensors go over NCCL. A CUDA device named
// without a number ("cuda", or "auto" on a CUDA machine) becomes the rank's own GPU, LOCAL_RANK
// (else the rank) modulo the GPUs it sees, as torchrun's ranks on one machine expect. NCCL
// carries the tensors only where the build has it and each rank has a GPU of its own (numbered
// by this rule, fewer local ranks than GPUs); ranks given one GPU explicitly, or more ranks than
// GPUs, stage their tensors through the host over Gloo (NCCL refuses ranks sharing a GPU).
struct RankDevice {
  std::string device;
  bool nccl = false;
  bool operator==(const RankDevice& o) const { return device == o.device && nccl == o.nccl; }
};
RankDevice rank_device(const std::string& device, const DistributedOptions& d);

class Collective {
 public:
  // Meets the other world_size - 1 ranks; throws DistributedError when this build has no
  // Gloo, the options are bad, or the rendezvous does not complete within the timeout.
  static std::unique_ptr<Collective> connect(const DistributedOptions& o);
  ~Collective();
  Collective(const Collective&) = delete;
  Collective& operator=(const Collective&) = delete;

  int rank() const;
  int world_size() const;
  // Element-wise maximum over every rank, in place.
  void max(std::vector<int64_t>& values);
  // Whether every rank passed the same value (one all-reduce); sets *lo and *hi, when given,
  // to the smallest and largest value passed.
  bool all_equal(int64_t value, int64_t* lo = nullptr, int64_t* hi = nullptr);

  struct Impl;  // c10d's objects (training/collective.cpp, training/gradient_sync.cpp)
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  explicit Collective(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xq::training
