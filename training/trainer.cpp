#include "training/trainer.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "nn/checkpoint.h"
#include "nn/device.h"
#include "nn/net_config.h"
#include "nn/network.h"
#include "nn/policy_labels.h"
#include "nn/torch_evaluator.h"
#include "training/collective_tensors.h"
#include "training/trainer_batch.h"

namespace xq::training {

namespace {

constexpr double kPi = 3.14159265358979323846;

// bfloat16 autocast on the trainer's device type, across the LibTorch versions we build against.
void set_autocast(bool cuda, bool on) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  const at::DeviceType type = cuda ? at::kCUDA : at::kCPU;
  at::autocast::set_autocast_dtype(type, at::kBFloat16);
  at::autocast::set_autocast_enabled(type, on);
#else
  if (cuda) {
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(on);
  } else {
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(on);
  }
#endif
  if (!on) at::autocast::clear_cache();
}

}  // namespace

struct Trainer::Impl {
  xqzero::TrainingConfig config;
  torch::Device device{torch::kCPU};
  nn::Network net{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  bool bfloat16 = false;
  int64_t step = 0;
  int64_t samples = 0;
  Collective* collective = nullptr;  // data-parallel ranks, or none
  // training.ema_decay > 0: the moving average of the trained weights that checkpoints carry.
  nn::Network average{nullptr};

  // build_batch (training/trainer_batch.h), moved to the trainer's device.
  Batch device_batch(const std::vector<TrainingPosition>& batch) const {
    Batch b = build_batch(batch, net->config(), config);
    for (torch::Tensor* t : {&b.compact, &b.policy, &b.soft_policy, &b.illegal, &b.wdl, &b.value_weight, &b.material,
                            &b.short_value, &b.reply, &b.reply_weight})
      if (t->defined()) *t = t->to(device);
    return b;
  }

  struct Losses {
    torch::Tensor policy, value, material, short_value, soft_policy, reply_policy, total;
  };

  // The losses of the network on a prepared batch.
  Losses losses(const Batch& b) {
    // Under bfloat16 the tower runs in it (autocast: bfloat16 convolutions, float32 weights);
    // the heads see float32 features. With the heads in bfloat16 too, the value head's pooled
    // sums lose the small differences it has to learn (tests/training/material_fit_test.cpp).
    const torch::Tensor planes = nn::expand_planes(b.compact, nn::plane_layout(net->config()), torch::kFloat32);
    torch::Tensor features;
    if (bfloat16) {
      set_autocast(device.is_cuda(), true);
      features = net->tower(planes).to(torch::kFloat32);
      set_autocast(device.is_cuda(), false);
    } else {
      features = net->tower(planes);
    }
    const nn::NetworkImpl::Heads h = net->heads(features, true);
    // Cross-entropy of a policy map against a target over the labels (over the legal moves with
    // legal_policy_loss), averaged over the samples that have a policy target (value-only
    // samples' rows are 0).
    const auto policy_loss = [&](const torch::Tensor& map, const torch::Tensor& target) {
      torch::Tensor logits = nn::label_logits(map).to(torch::kFloat32);
      if (b.illegal.defined()) logits = logits + b.illegal;
      return -(target * torch::log_softmax(logits, 1)).sum() / std::max(1.0, b.policy_rows);
    };
    const torch::Tensor wdl = h.wdl.to(torch::kFloat32);
    Losses l;
    l.policy = policy_loss(h.policy, b.policy);
    const torch::Tensor value_ce = -(b.wdl * torch::log_softmax(wdl, 1)).sum(1);
    l.value = (value_ce * b.value_weight).sum() / b.value_weight.sum().clamp_min(1.0);
    l.total = l.policy + config.value_loss_weight() * l.value;
    if (h.material.defined()) {
      l.material = (h.material.to(torch::kFloat32) - b.material).pow(2).mean();
      l.total = l.total + config.material_loss_weight() * l.material;
    }
    if (h.soft_policy.defined() && b.soft_policy.defined()) {
      l.soft_policy = policy_loss(h.soft_policy, b.soft_policy);
      l.total = l.total + config.soft_policy_loss_weight() * l.soft_policy;
    }
    if (h.reply_policy.defined() && b.reply.defined()) {  // over all labels: the reply's legality is not known here
      const torch::Tensor logp = torch::log_softmax(nn::label_logits(h.reply_policy).to(torch::kFloat32), 1);
      const torch::Tensor ce = -logp.gather(1, b.reply.unsqueeze(1)).squeeze(1);
      l.reply_policy = (ce * b.reply_weight).sum() / std::max(1.0, b.reply_rows);
      l.total = l.total + config.reply_policy_loss_weight() * l.reply_policy;
    }
    if (h.short_value.defined()) {
      l.short_value = (h.short_value.to(torch::kFloat32) - b.short_value).pow(2).mean();
      l.total = l.total + config.short_value_loss_weight() * l.short_value;
    }
    return l;
  }

  // The batch's figures (one device synchronisation).
  StepLosses report(const Losses& l, const Batch& b) const {
    std::vector<torch::Tensor> parts{l.policy.detach(), l.value.detach()};
    if (l.material.defined()) parts.push_back(l.material.detach());
    if (l.short_value.defined()) parts.push_back(l.short_value.detach());
    if (l.soft_policy.defined()) parts.push_back(l.soft_policy.detach());
    if (l.reply_policy.defined()) parts.push_back(l.reply_policy.detach());
    const torch::Tensor host = torch::stack(parts).to(torch::kCPU, torch::kDouble);
    const double* x = host.data_ptr<double>();
    StepLosses out;
    out.policy = x[0];
    out.value = x[1];
    size_t next = 2;
    if (l.material.defined()) out.material = x[next++];
    if (l.short_value.defined()) out.short_value = x[next++];
    if (l.soft_policy.defined()) out.soft_policy = x[next++];
    if (l.reply_policy.defined()) out.reply_policy = x[next++];
    out.policy_entropy = b.policy_entropy;
    out.value_entropy = b.value_entropy;
    return out;
  }

  // Backward pass, clipping and the optimiser step for `loss`.
  void apply(const torch::Tensor& loss) {
    optimizer->zero_grad();
    loss.backward();
    finish_step();
  }

  // After the backward passes: the gradients averaged over the ranks (data-parallel), then
  // clipping and the optimiser step.
  void finish_step() {
    if (collective) average_gradients(*collective, net->parameters());
    if (config.grad_clip() > 0) torch::nn::utils::clip_grad_norm_(net->parameters(), config.grad_clip());
    optimizer->step();
  }

  // The tensors every rank must hold alike: parameters, then buffers (BatchNorm statistics).
  // The BatchNorm running statistics (the integer batch counters left out) of `of`.
  static std::vector<torch::Tensor> float_buffers_of(const nn::Network& of) {
    std::vector<torch::Tensor> t;
    for (const torch::Tensor& b : of->buffers())
      if (b.is_floating_point()) t.push_back(b);
    return t;
  }
  std::vector<torch::Tensor> float_buffers() const { return float_buffers_of(net); }

  // One step of the moving average after the optimiser's step number `t` (0 for the first):
  // average = d * average + (1 - d) * trained, with d = min(ema_decay, (1 + t) / (10 + t)),
  // for the parameters and the BatchNorm running statistics; the batch counters are copied.
  void update_average(int64_t t) {
    if (!average) return;
    torch::NoGradGuard no_grad;
    const double d = std::min(double(config.ema_decay()), (1.0 + double(t)) / (10.0 + double(t)));
    const std::vector<torch::Tensor> a = average->parameters(), p = net->parameters();
    for (size_t i = 0; i < a.size(); ++i) a[i].mul_(d).add_(p[i].detach(), 1.0 - d);
    const std::vector<torch::Tensor> ab = average->buffers(), nb = net->buffers();
    for (size_t i = 0; i < ab.size(); ++i) {
      if (ab[i].is_floating_point())
        ab[i].mul_(d).add_(nb[i], 1.0 - d);
      else
        ab[i].copy_(nb[i]);
    }
  }

  // Everything that makes two ranks' nets equal: the parameters, then the float buffers.
  std::vector<torch::Tensor> state_tensors() const {
    std::vector<torch::Tensor> t = net->parameters();
    for (const torch::Tensor& b : float_buffers()) t.push_back(b);
    return t;
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
  if (network.history() > 0)
    throw std::invalid_argument("network.history > 0: the trainer's batches hold no earlier positions yet");
  m.config = training;
  const nn::DeviceSpec spec = nn::resolve_device(training.device());
  m.device = spec.cuda ? torch::Device(torch::kCUDA, int8_t(spec.index)) : torch::Device(torch::kCPU);
  if (training.threads() > 0) torch::set_num_threads(training.threads());
  m.net = nn::make_network(network, uint64_t(training.seed()));
  // "auto": bfloat16 on CUDA; on a CPU what a timing of this net's tower in both precisions
  // found faster on this machine (nn::auto_cpu_precision, cached per machine). The material-fit
  // sanity test learns about as well in bfloat16 as in float32 (tests/training/material_fit_test.cpp).
  m.bfloat16 = training.precision() == "bfloat16" ||
               (training.precision() == "auto" &&
                (spec.cuda || nn::auto_cpu_precision(m.net, training.threads()) == "bfloat16"));
  m.net->to(m.device);
  m.net->train();
  if (training.ema_decay() > 0) {
    m.average = nn::clone_network(m.net);
    m.average->to(m.device);
  }
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
  return step_parts({&batch}, with_regularisation);
}

StepLosses Trainer::step_split(const std::vector<std::vector<TrainingPosition>>& parts, bool with_regularisation) {
  std::vector<const std::vector<TrainingPosition>*> p;
  for (const auto& part : parts) p.push_back(&part);
  return step_parts(p, with_regularisation);
}

StepLosses Trainer::step_parts(const std::vector<const std::vector<TrainingPosition>*>& parts,
                               bool with_regularisation) {
  Impl& m = *impl_;
  if (parts.empty()) throw std::invalid_argument("Trainer::step: no batch");
  const double lr = learning_rate_at(m.step);
  m.set_learning_rate(lr);

  // One backward pass per part on its share of the mean loss: the gradient of the mean of
  // the parts' losses, each with its own BatchNorm batch statistics.
  m.optimizer->zero_grad();
  StepLosses out;
  const double share = 1.0 / double(parts.size());
  int64_t positions = 0;
  for (const std::vector<TrainingPosition>* part : parts) {
    const Batch b = m.device_batch(*part);
    const Impl::Losses l = m.losses(b);
    (parts.size() == 1 ? l.total : l.total * share).backward();
    const StepLosses r = m.report(l, b);
    out.policy += share * r.policy;
    out.value += share * r.value;
    out.material += share * r.material;
    out.short_value += share * r.short_value;
    out.soft_policy += share * r.soft_policy;
    out.reply_policy += share * r.reply_policy;
    out.policy_entropy += share * r.policy_entropy;
    out.value_entropy += share * r.value_entropy;
    positions += int64_t(part->size());
  }
  m.finish_step();
  m.update_average(m.step);
  ++m.step;
  // Every rank counts the samples of all ranks (shares of equal size).
  m.samples += positions * (m.collective ? m.collective->world_size() : 1);

  out.learning_rate = lr;
  if (with_regularisation && m.config.weight_decay() > 0) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> squares;
    for (const auto& p : m.net->parameters()) squares.push_back(p.pow(2).sum());
    out.regularisation = 0.5 * m.config.weight_decay() * torch::stack(squares).sum().item<double>();
  }
  return out;
}

void Trainer::join(Collective& collective) {
  Impl& m = *impl_;
  m.collective = &collective;
  broadcast_from_first(collective, m.state_tensors());
  if (m.average) {
    std::vector<torch::Tensor> average = m.average->parameters();
    for (const torch::Tensor& b : Impl::float_buffers_of(m.average)) average.push_back(b);
    broadcast_from_first(collective, average);
  }
}

void Trainer::average_buffers() {
  Impl& m = *impl_;
  if (!m.collective) return;
  average_tensors(*m.collective, m.float_buffers());
  if (m.average) average_tensors(*m.collective, Impl::float_buffers_of(m.average));
}

uint64_t Trainer::weights_checksum() const {
  torch::NoGradGuard no_grad;
  // FNV-1a over the float32 bytes of every parameter and buffer, in order.
  uint64_t h = 1469598103934665603ULL;
  for (const torch::Tensor& t : impl_->state_tensors()) {
    const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
    for (size_t i = 0, n = size_t(c.numel()) * sizeof(float); i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ULL;
  }
  return h;
}

StepLosses Trainer::measure(const std::vector<TrainingPosition>& batch) {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  m.net->eval();
  const Batch b = m.device_batch(batch);
  const StepLosses out = m.report(m.losses(b), b);
  m.net->train();
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
  // With weight averaging the average is the checkpoint's network and the trained weights
  // ride along for a resumed run.
  if (m.average) extra["trained_weights"] = nn::weights_bytes(const_cast<nn::Network&>(m.net));
  nn::save_checkpoint(path, const_cast<nn::Network&>(m.average ? m.average : m.net), m.step, note, extra);
}

void Trainer::load(const std::string& path, std::mt19937_64& rng) {
  Impl& m = *impl_;
  nn::CheckpointSections extra;
  // The checkpoint's network is the average where the run averages, else the trained weights.
  // A checkpoint of an averaging run also carries the trained weights; one without them (a
  // run that did not average, a bare network) starts the average at its weights.
  const xqzero::CheckpointMeta meta = nn::load_checkpoint(path, m.average ? m.average : m.net, &extra);
  const auto trained = extra.find("trained_weights");
  if (trained != extra.end()) {
    nn::load_weights_bytes(path, "trained_weights", trained->second, m.net);
  } else if (m.average) {
    nn::copy_weights(m.average, m.net);
  }
  m.net->to(m.device);
  m.net->train();
  if (m.average) m.average->to(m.device);
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
  const Batch b = m.device_batch(batch);
  // The same computation as step() on the same tensors, without data preparation. The
  // weights change, as in training; the caller's trainer is not used afterwards.
  const auto start = std::chrono::steady_clock::now();
  int64_t done = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    const Impl::Losses l = m.losses(b);
    m.apply(l.total);
    done += int64_t(batch.size());
    m.report(l, b);  // step() reads the losses back too
  }
  return double(done) / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace xq::training
