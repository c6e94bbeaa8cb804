// The players of matches and evaluations, built in one place from a spec, for `xqzero match`
// and the training loop's evaluations (training/evaluation.h):
//   "random", "greedy"         the baselines of selfplay/players.h
//   "uci:COMMAND"              an external UCI engine (`/bin/sh -c COMMAND`), with `engine`'s
//                              other options
//   "uniform"                  MCTS with uniform priors, no network
//   anything else              a checkpoint: MCTS over that net (its own architecture)
// MCTS players take the config's search settings and evaluator (device, precision, cache);
// their batches hold at most what `concurrency` games have in flight at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "config.pb.h"
#include "selfplay/players.h"

namespace xq::training {

// Throws std::invalid_argument naming the spec when it is none of the above (a checkpoint
// that cannot be read), and what loading a checkpoint throws (naming the file).
std::unique_ptr<selfplay::Player> make_player(const std::string& spec, const xqzero::Config& config,
                                              int concurrency = 1, uint64_t seed = 1,
                                              selfplay::UciEngineOptions engine = selfplay::UciEngineOptions(),
                                              const std::string& name = "");

}  // namespace xq::training
