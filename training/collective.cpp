// training/collective.h and training/collective_tensors.h: the one translation unit that
// includes c10d. Without Gloo (XQZERO_HAVE_GLOO unset: libgloo-dev's headers were not found
// at configure time) it still builds, and connect() says what this build lacks. With
// XQZERO_HAVE_NCCL (a CUDA LibTorch, its c10d NCCL header and nccl.h found) a CUDA trainer's
// tensor collectives run over ProcessGroupNCCL on the device; the flags stay on Gloo.
#include "training/collective.h"

#include <torch/torch.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>

#include "nn/device.h"
#include "training/collective_tensors.h"

#ifdef XQZERO_HAVE_GLOO
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif
#ifdef XQZERO_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace xq::training {

namespace {

// A whole decimal number in [lo, hi] from `text`, or a DistributedError naming `what`.
int64_t parse_int(const std::string& text, int64_t lo, int64_t hi, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || end == nullptr || *end != '\0' || v < lo || v > hi)
    throw DistributedError(what + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                           ", got '" + text + "'");
  return int64_t(v);
}

}  // namespace

void read_distributed_environment(DistributedOptions& o) {
  if (const char* v = std::getenv("WORLD_SIZE")) o.world_size = int(parse_int(v, 1, 1024, "WORLD_SIZE"));
  if (const char* v = std::getenv("RANK")) o.rank = int(parse_int(v, 0, 1023, "RANK"));
  if (const char* v = std::getenv("MASTER_ADDR")) {
    if (*v == '\0') throw DistributedError("MASTER_ADDR is set but empty");
    o.master_addr = v;
  }
  if (const char* v = std::getenv("MASTER_PORT")) o.master_port = int(parse_int(v, 1, 65535, "MASTER_PORT"));
  if (const char* v = std::getenv("LOCAL_RANK")) o.local_rank = int(parse_int(v, 0, 1023, "LOCAL_RANK"));
}

void parse_master(const std::string& text, DistributedOptions& o) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw DistributedError("--master must be HOST:PORT, got '" + text + "'");
  o.master_addr = text.substr(0, colon);
  o.master_port = int(parse_int(text.substr(colon + 1), 1, 65535, "the port of --master '" + text + "'"));
}

RankDevice rank_device(const std::string& device, const DistributedOptions& d) {
  const nn::DeviceSpec spec = nn::resolve_device(device);
  if (!spec.cuda) return {device, false};
  if (device.find(':') != std::string::npos) return {device, false};
  const int local = d.local_rank >= 0 ? d.local_rank : d.rank;
  const int gpus = nn::cuda_device_count();
  return {"cuda:" + std::to_string(local % gpus), nccl_available() && local < gpus};
}

void validate_distributed(const DistributedOptions& o) {
  if (o.world_size < 1 || o.world_size > 1024)
    throw DistributedError("world size must be from 1 to 1024, got " + std::to_string(o.world_size));
  if (o.rank < 0 || o.rank >= o.world_size)
    throw DistributedError("rank must be from 0 to " + std::to_string(o.world_size - 1) + " (world size " +
                           std::to_string(o.world_size) + "), got " + std::to_string(o.rank));
  if (o.master_port < 1 || o.master_port > 65535)
    throw DistributedError("master port must be from 1 to 65535, got " + std::to_string(o.master_port));
  if (o.master_addr.empty()) throw DistributedError("master address is empty");
  if (!(o.timeout_s > 0)) throw DistributedError("distributed timeout must be positive");
}

#ifdef XQZERO_HAVE_GLOO

bool distributed_available() { return true; }
#ifdef XQZERO_HAVE_NCCL
bool nccl_available() { return true; }
#else
bool nccl_available() { return false; }
#endif

constexpr const char* kPeerTrouble = "a peer stopped, died or did not answer within the timeout";

struct Collective::Impl {
  int rank = 0, world = 1;
  std::chrono::milliseconds timeout{0};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;  // flags, and tensors staged on the host
#ifdef XQZERO_HAVE_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;  // a CUDA trainer's tensors, on the device
#endif

  bool tensors_on_device() const {
#ifdef XQZERO_HAVE_NCCL
    return bool(nccl);
#else
    return false;
#endif
  }

  std::string who() const { return "rank " + std::to_string(rank) + " of " + std::to_string(world); }

  // Runs a c10d call; any failure becomes a DistributedError naming this rank, `what`, and
  // the likely cause (`cause`, for the exchanges: a peer that stopped, died or hangs).
  void guarded(const std::string& what, const std::function<void()>& f, const std::string& cause = "") const {
    const std::string head = who() + ": " + what + " failed" + (cause.empty() ? "" : " (" + cause + ")") + ": ";
    try {
      f();
    } catch (const c10::Error& e) {
      throw DistributedError(head + e.what_without_backtrace());
    } catch (const std::exception& e) {
      throw DistributedError(head + e.what());
    }
  }

  // The collectives, on the group that carries `t`: NCCL for device tensors where there is
  // one, else Gloo.
  template <typename Group>
  static void all_reduce_on(Group& g, torch::Tensor& t, c10d::ReduceOp::RedOpType op,
                            std::chrono::milliseconds timeout) {
    std::vector<at::Tensor> tensors{t};
    c10d::AllreduceOptions opts;
    opts.reduceOp = c10d::ReduceOp(op);
    opts.timeout = timeout;
    g.allreduce(tensors, opts)->wait(timeout);
  }
  template <typename Group>
  static void broadcast_on(Group& g, torch::Tensor& t, std::chrono::milliseconds timeout) {
    std::vector<at::Tensor> tensors{t};
    c10d::BroadcastOptions opts;
    opts.rootRank = 0;
    opts.timeout = timeout;
    g.broadcast(tensors, opts)->wait(timeout);
  }

  void all_reduce(torch::Tensor& t, c10d::ReduceOp::RedOpType op, const std::string& what) {
    guarded(
        what,
        [&] {
#ifdef XQZERO_HAVE_NCCL
          if (nccl && t.is_cuda()) return all_reduce_on(*nccl, t, op, timeout);
#endif
          all_reduce_on(*group, t, op, timeout);
        },
        kPeerTrouble);
  }

  void broadcast(torch::Tensor& t, const std::string& what) {
    guarded(
        what,
        [&] {
#ifdef XQZERO_HAVE_NCCL
          if (nccl && t.is_cuda()) return broadcast_on(*nccl, t, timeout);
#endif
          broadcast_on(*group, t, timeout);
        },
        kPeerTrouble);
  }
};

std::unique_ptr<Collective> Collective::connect(const DistributedOptions& o) {
  validate_distributed(o);
  auto m = std::make_unique<Impl>();
  m->rank = o.rank;
  m->world = o.world_size;
  m->timeout = std::chrono::milliseconds(int64_t(o.timeout_s * 1000));
  const std::string where = o.master_addr + ":" + std::to_string(o.master_port);
  m->guarded(o.rank == 0 ? "serving the rendezvous at " + where : "joining the rendezvous at " + where, [&] {
    c10d::TCPStoreOptions so;
    so.port = uint16_t(o.master_port);
    so.isServer = o.rank == 0;
    so.numWorkers = size_t(o.world_size);
    so.waitWorkers = false;  // the process group's own rendezvous waits, with its timeout
    so.timeout = m->timeout;
    m->store = c10::make_intrusive<c10d::TCPStore>(o.master_addr, so);
  });
  // Each process group keeps its keys under its own prefix of the one store.
  const auto gloo_store = c10::make_intrusive<c10d::PrefixStore>("gloo", m->store);
  m->guarded(
      "the process group's rendezvous at " + where,
      [&] {
        auto options = c10d::ProcessGroupGloo::Options::create(m->timeout);
        // The interface to talk on: GLOO_SOCKET_IFNAME as in PyTorch, loopback for a
        // master on this machine, else the one this host's name resolves to.
        const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
        if (ifname && *ifname)
          options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
        else if (o.master_addr == "127.0.0.1" || o.master_addr == "localhost")
          options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        else
          options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        options->threads = 2;
        m->group = c10::make_intrusive<c10d::ProcessGroupGloo>(gloo_store, o.rank, o.world_size, options);
      },
      "all " + std::to_string(o.world_size) + " ranks must start within the timeout");
#ifdef XQZERO_HAVE_NCCL
  if (o.nccl)
    m->guarded("creating the NCCL process group", [&] {
      // Blocking waits, so that a collective with a dead peer throws after the timeout
      // (caught as a DistributedError) instead of hanging the next synchronisation.
      ::setenv("TORCH_NCCL_BLOCKING_WAIT", "1", 0);
      ::setenv("NCCL_BLOCKING_WAIT", "1", 0);
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = m->timeout;
      const auto nccl_store = c10::make_intrusive<c10d::PrefixStore>("nccl", m->store);
      m->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(nccl_store, o.rank, o.world_size, options);
    });
#endif
  return std::unique_ptr<Collective>(new Collective(std::move(m)));
}

void Collective::max(std::vector<int64_t>& values) {
  if (values.empty()) return;
  torch::Tensor t = torch::tensor(values, torch::kInt64);
  impl_->all_reduce(t, c10d::ReduceOp::MAX, "an all-reduce (max) of " + std::to_string(values.size()) + " flags");
  const int64_t* p = t.data_ptr<int64_t>();
  values.assign(p, p + values.size());
}

namespace {

// The tensors (or their gradients) as one flat float32 buffer, and back: on the host for
// Gloo, on the tensors' device when NCCL carries them.
torch::Tensor flatten(const Collective& c, const std::vector<torch::Tensor>& parts) {
  const bool on_device = c.impl().tensors_on_device() && parts.front().is_cuda();
  std::vector<torch::Tensor> flat;
  flat.reserve(parts.size());
  for (const torch::Tensor& t : parts) {
    torch::Tensor v = t.detach().reshape({-1});
    flat.push_back(on_device ? v.to(torch::kFloat32) : v.to(torch::kCPU, torch::kFloat32));
  }
  return torch::cat(flat);
}

void unflatten(const torch::Tensor& flat, const std::vector<torch::Tensor>& parts) {
  int64_t offset = 0;
  for (const torch::Tensor& t : parts) {
    const int64_t n = t.numel();
    torch::Tensor piece = flat.narrow(0, offset, n).view(t.sizes());
    torch::Tensor target = t;  // shares storage with the caller's tensor
    target.detach().copy_(piece.to(t.device(), t.scalar_type()));
    offset += n;
  }
}

}  // namespace

void average_gradients(Collective& c, const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  grads.reserve(parameters.size());
  for (const torch::Tensor& p : parameters) {
    torch::Tensor param = p;
    if (!param.grad().defined()) param.mutable_grad() = torch::zeros_like(param);
    grads.push_back(param.grad());
  }
  average_tensors(c, grads);
}

void average_tensors(Collective& c, const std::vector<torch::Tensor>& tensors) {
  if (tensors.empty()) return;
  torch::NoGradGuard no_grad;
  torch::Tensor flat = flatten(c, tensors);
  c.impl().all_reduce(
      flat, c10d::ReduceOp::SUM,
      "the all-reduce of " + std::to_string(tensors.size()) + " tensors (" + std::to_string(flat.numel()) + " values)");
  flat.div_(double(c.world_size()));
  unflatten(flat, tensors);
}

void broadcast_from_first(Collective& c, const std::vector<torch::Tensor>& tensors) {
  if (tensors.empty()) return;
  torch::NoGradGuard no_grad;
  torch::Tensor flat = flatten(c, tensors);
  c.impl().broadcast(flat, "the broadcast of rank 0's " + std::to_string(tensors.size()) + " tensors");
  unflatten(flat, tensors);
}

#else  // no Gloo in this build

bool distributed_available() { return false; }
bool nccl_available() { return false; }

struct Collective::Impl {
  int rank = 0, world = 1;
};

std::unique_ptr<Collective> Collective::connect(const DistributedOptions& o) {
  validate_distributed(o);
  throw DistributedError(
      "this build of xqzero has no data-parallel training: LibTorch's c10d Gloo headers were not found "
      "at configure time (Debian: apt-get install libgloo-dev, then rebuild)");
}

void Collective::max(std::vector<int64_t>&) {}
void average_gradients(Collective&, const std::vector<torch::Tensor>&) {}
void average_tensors(Collective&, const std::vector<torch::Tensor>&) {}
void broadcast_from_first(Collective&, const std::vector<torch::Tensor>&) {}

#endif

bool Collective::all_equal(int64_t value, int64_t* lo, int64_t* hi) {
  // The maximum of (v, -v) over the ranks is (largest, -smallest). Values are kept within
  // +-2^62 so that negating never overflows.
  const int64_t v = std::max<int64_t>(-(int64_t(1) << 62), std::min<int64_t>(int64_t(1) << 62, value));
  std::vector<int64_t> both{v, -v};
  max(both);
  if (lo) *lo = -both[1];
  if (hi) *hi = both[0];
  return both[0] == -both[1];
}

Collective::Collective(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Collective::~Collective() = default;
int Collective::rank() const { return impl_->rank; }
int Collective::world_size() const { return impl_->world; }

}  // namespace xq::training
