#include "training/evaluation.h"

#include "core/movegen.h"
#include "nn/evaluator_factory.h"
#include "selfplay/match.h"
#include "selfplay/selfplay_config.h"

namespace xq::training {

MatchScore play_evaluation_match(selfplay::Player& a, selfplay::Player& b, int games, int visits,
                                 const GameSettings& settings, int opening_plies, uint64_t seed) {
  selfplay::MatchOptions o;
  o.games = games;
  o.limits.nodes = visits;
  o.game = settings;
  o.seed = seed;
  for (int pair = 0; pair < (games + 1) / 2; ++pair) {
    std::mt19937_64 rng(seed * 1000003ULL + uint64_t(pair));
    selfplay::Opening opening;
    Position pos;
    for (int ply = 0; ply < opening_plies; ++ply) {
      MoveList moves(pos);
      if (moves.size() < 2) break;
      const Move m = moves[int(rng() % uint64_t(moves.size()))];
      opening.moves.push_back(m);
      UndoInfo undo;
      pos.do_move(m, undo);
    }
    o.openings.push_back(opening);
  }
  const selfplay::MatchResult r = selfplay::play_match(a, b, o);
  return MatchScore{b.name(), r.elo()};
}

std::unique_ptr<selfplay::Player> checkpoint_player(const xqzero::Config& config, const std::string& checkpoint,
                                                    const std::string& name) {
  xqzero::EvaluatorConfig ec = config.evaluator();
  ec.set_name("torch");
  ec.set_weights(checkpoint);
  selfplay::MctsPlayerOptions o;
  o.search = selfplay::search_params(config.search());
  o.leaves_per_batch = config.search().leaves_per_batch();
  o.name = name;
  return std::make_unique<selfplay::MctsPlayer>(nn::make_evaluator(ec, config.network()), o);
}

}  // namespace xq::training
