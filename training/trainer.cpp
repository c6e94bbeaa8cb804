#include "training/trainer.h"

#include <torch/torch.h>
#include <torch/version.h>
#include <ATen/autocast_mode.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "nn/checkpoint.h"
#include "nn/device.h"
#include "nn/network.h"
#include "nn/policy_labels.h"

namespace xq::training {

namespace {

constexpr double kPi = 3.14159265358979323846;

// bfloat16 autocast on CUDA, across the LibTorch versions we build against.
void set_cuda_autocast(bool on) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
  at::autocast::set_autocast_enabled(at::kCUDA, on);
#else
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  at::autocast::set_enabled(on);
#endif
  if (!on) at::autocast::clear_cache();
}

}  // namespace

struct Trainer::Impl {
  xqzero::NetworkConfig net_config;
  xqzero::TrainingConfig config;
  torch::Device device{torch::kCPU};
  nn::Network net{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  int64_t step = 0;
  int64_t samples = 0;

  // Host tensors of one batch: compact input, dense policy target, W/D/L target.
  void build_batch(const std::vector<TrainingPosition>& batch, torch::Tensor& compact, torch::Tensor& policy,
                   torch::Tensor& wdl) const {
    const int64_t n = int64_t(batch.size());
    compact = torch::empty({n, int64_t(sizeof(nn::Encoding))}, torch::kUInt8);
    policy = torch::zeros({n, nn::kNumLabels}, torch::kFloat32);
    wdl = torch::zeros({n, 3}, torch::kFloat32);
    uint8_t* c = compact.data_ptr<uint8_t>();
    float* p = policy.data_ptr<float>();
    float* v = wdl.data_ptr<float>();
    const float mix = config.root_value_mix();
    for (int64_t i = 0; i < n; ++i) {
      const TrainingPosition& s = batch[size_t(i)];
      std::memcpy(c + i * int64_t(sizeof(nn::Encoding)), &s.encoding, sizeof(nn::Encoding));
      float sum = 0;
      for (int k = 0; k < s.n_policy; ++k) sum += float(s.weights[k]);
      for (int k = 0; k < s.n_policy && sum > 0; ++k) p[i * nn::kNumLabels + s.labels[k]] += float(s.weights[k]) / sum;
      float z[3] = {s.result > 0 ? 1.0f : 0.0f, s.result == 0 ? 1.0f : 0.0f, s.result < 0 ? 1.0f : 0.0f};
      if (mix > 0) {
        const float q = float(s.root_value) / 65535.0f * 2 - 1, d = float(s.root_draw) / 65535.0f;
        const float root[3] = {std::max(0.0f, (1 - d + q) / 2), d, std::max(0.0f, (1 - d - q) / 2)};
        for (int k = 0; k < 3; ++k) z[k] = (1 - mix) * z[k] + mix * root[k];
      }
      for (int k = 0; k < 3; ++k) v[i * 3 + k] = z[k];
    }
  }

  // Policy and W/D/L cross-entropies of the network on a prepared batch.
  std::pair<torch::Tensor, torch::Tensor> losses(const torch::Tensor& compact, const torch::Tensor& policy_target,
                                                 const torch::Tensor& wdl_target) {
    const bool autocast = device.is_cuda();
    if (autocast) set_cuda_autocast(true);
    auto [policy_map, wdl_logits] = net->forward_compact(compact);
    const torch::Tensor logits = nn::label_logits(policy_map).to(torch::kFloat32);
    const torch::Tensor wdl = wdl_logits.to(torch::kFloat32);
    if (autocast) set_cuda_autocast(false);
    return {-(policy_target * torch::log_softmax(logits, 1)).sum(1).mean(),
            -(wdl_target * torch::log_softmax(wdl, 1)).sum(1).mean()};
  }

  // Backward pass, clipping and the optimiser step for `loss`.
  void apply(const torch::Tensor& loss) {
    optimizer->zero_grad();
    loss.backward();
    if (config.grad_clip() > 0) torch::nn::utils::clip_grad_norm_(net->parameters(), config.grad_clip());
    optimizer->step();
  }

  // build_batch, moved to the trainer's device.
  void device_batch(const std::vector<TrainingPosition>& batch, torch::Tensor& compact, torch::Tensor& policy,
                    torch::Tensor& wdl) const {
    build_batch(batch, compact, policy, wdl);
    compact = compact.to(device);
    policy = policy.to(device);
    wdl = wdl.to(device);
  }

  void set_learning_rate(double lr) {
    for (auto& group : optimizer->param_groups()) {
      if (config.optimizer() == "adamw")
        static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
      else
        static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
    }
  }
};

Trainer::Trainer(const xqzero::NetworkConfig& network, const xqzero::TrainingConfig& training)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.net_config = network;
  m.config = training;
  const nn::DeviceSpec spec = nn::resolve_device(training.device());
  m.device = spec.cuda ? torch::Device(torch::kCUDA, int8_t(spec.index)) : torch::Device(torch::kCPU);
  if (training.threads() > 0) torch::set_num_threads(training.threads());
  m.net = nn::make_network(network, uint64_t(training.seed()));
  m.net->to(m.device);
  m.net->train();
  if (training.optimizer() == "adamw") {
    torch::optim::AdamWOptions o(training.learning_rate());
    o.betas(std::make_tuple(double(training.momentum()), 0.999)).weight_decay(training.weight_decay());
    m.optimizer = std::make_unique<torch::optim::AdamW>(m.net->parameters(), o);
  } else {
    torch::optim::SGDOptions o(training.learning_rate());
    o.momentum(training.momentum()).nesterov(true).weight_decay(training.weight_decay());
    m.optimizer = std::make_unique<torch::optim::SGD>(m.net->parameters(), o);
  }
}

Trainer::~Trainer() = default;

int64_t Trainer::steps() const { return impl_->step; }
int64_t Trainer::samples_trained() const { return impl_->samples; }
std::string Trainer::device_name() const { return impl_->device.str(); }

double Trainer::learning_rate_at(int64_t step) const {
  const xqzero::TrainingConfig& c = impl_->config;
  const double lr = c.learning_rate();
  if (c.lr_schedule() == "step") return lr * std::pow(double(c.lr_step_gamma()), double(step / c.lr_step_every()));
  if (c.lr_schedule() == "cosine") {
    const double t = std::min(1.0, double(step) / double(c.cosine_steps()));
    return c.lr_min() + (lr - c.lr_min()) * 0.5 * (1 + std::cos(kPi * t));
  }
  return lr;
}

StepLosses Trainer::step(const std::vector<TrainingPosition>& batch, bool with_regularisation) {
  Impl& m = *impl_;
  torch::Tensor compact, policy_target, wdl_target;
  m.device_batch(batch, compact, policy_target, wdl_target);
  const double lr = learning_rate_at(m.step);
  m.set_learning_rate(lr);

  const auto [policy_loss, value_loss] = m.losses(compact, policy_target, wdl_target);
  m.apply(policy_loss + m.config.value_loss_weight() * value_loss);
  ++m.step;
  m.samples += int64_t(batch.size());

  StepLosses out;
  out.policy = policy_loss.item<double>();
  out.value = value_loss.item<double>();
  out.learning_rate = lr;
  if (with_regularisation && m.config.weight_decay() > 0) {
    torch::NoGradGuard no_grad;
    double sq = 0;
    for (const auto& p : m.net->parameters()) sq += p.pow(2).sum().item<double>();
    out.regularisation = 0.5 * m.config.weight_decay() * sq;
  }
  return out;
}

void Trainer::save(const std::string& path, const std::string& note, const std::mt19937_64& rng) const {
  const Impl& m = *impl_;
  nn::CheckpointSections extra;
  {
    torch::serialize::OutputArchive archive;
    m.optimizer->save(archive);
    std::ostringstream os;
    archive.save_to(os);
    extra["optimizer"] = os.str();
  }
  {
    std::ostringstream os;
    os << "samples " << m.samples << "\nrng " << rng << "\n";
    extra["trainer"] = os.str();
  }
  nn::save_checkpoint(path, const_cast<nn::Network&>(m.net), m.step, note, extra);
}

void Trainer::load(const std::string& path, std::mt19937_64& rng) {
  Impl& m = *impl_;
  nn::CheckpointSections extra;
  const xqzero::CheckpointMeta meta = nn::load_checkpoint(path, m.net, &extra);
  m.net->to(m.device);
  m.net->train();
  m.step = meta.step();
  m.samples = 0;
  if (extra.count("optimizer")) {
    torch::serialize::InputArchive archive;
    std::istringstream is(extra["optimizer"]);
    archive.load_from(is, m.device);
    m.optimizer->load(archive);
  }
  if (extra.count("trainer")) {
    std::istringstream is(extra["trainer"]);
    std::string word;
    while (is >> word) {
      if (word == "samples") is >> m.samples;
      if (word == "rng") is >> rng;
    }
    if (is.bad()) throw nn::CheckpointError("checkpoint '" + path + "': unreadable trainer state");
  }
}

double Trainer::raw_throughput(const std::vector<TrainingPosition>& batch, double seconds) {
  Impl& m = *impl_;
  torch::Tensor compact, policy_target, wdl_target;
  m.device_batch(batch, compact, policy_target, wdl_target);
  // The same computation as step() on the same tensors, without data preparation. The
  // weights change, as in training; the caller's trainer is not used afterwards.
  const auto start = std::chrono::steady_clock::now();
  int64_t done = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    const auto [policy_loss, value_loss] = m.losses(compact, policy_target, wdl_target);
    m.apply(policy_loss + m.config.value_loss_weight() * value_loss);
    done += int64_t(batch.size());
    policy_loss.item<float>();  // step() reads both losses back too
    value_loss.item<float>();
  }
  return double(done) / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace xq::training
