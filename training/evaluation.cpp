#include "training/evaluation.h"

#include "core/movegen.h"
#include "nn/evaluator_factory.h"
#include "selfplay/selfplay_config.h"

namespace xq::training {

MatchScore play_evaluation_match(selfplay::Player& a, selfplay::Player& b, int games, int visits,
                                 const GameSettings& settings, int opening_plies, uint64_t seed) {
  int64_t wins = 0, draws = 0, losses = 0;
  selfplay::MoveLimits limits;
  limits.nodes = visits;
  for (int g = 0; g < games; ++g) {
    const bool a_red = g % 2 == 0;
    Position start;
    std::mt19937_64 rng(seed * 1000003ULL + uint64_t(g / 2));
    for (int ply = 0; ply < opening_plies; ++ply) {
      MoveList moves(start);
      if (moves.size() < 2) break;
      UndoInfo undo;
      start.do_move(moves[int(rng() % uint64_t(moves.size()))], undo);
    }
    start.set_counters(0, 1);
    Game game(start, settings);
    a.new_game(game);
    b.new_game(game);
    while (!game.over()) {
      selfplay::Player& mover = (game.side_to_move() == RED) == a_red ? a : b;
      const selfplay::PlayerMove pm = mover.choose(game, limits);
      if (!pm.failure.empty() || !is_legal(game.position(), pm.move)) {
        game.resign(game.side_to_move());  // a failing player loses the game
        break;
      }
      game.play(pm.move);
    }
    const Result r = game.state().result;
    if (r == Result::DRAW)
      ++draws;
    else if ((r == Result::RED_WIN) == a_red)
      ++wins;
    else
      ++losses;
  }
  return MatchScore{b.name(), selfplay::estimate_elo(wins, draws, losses)};
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
