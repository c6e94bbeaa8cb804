#include "training/evaluation.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "core/movegen.h"
#include "selfplay/match.h"
#include "training/player_factory.h"

namespace xq::training {

namespace {

// A player that searches with its own limits, whatever the match asks of it.
class OwnLimitsPlayer final : public selfplay::Player {
 public:
  OwnLimitsPlayer(std::unique_ptr<selfplay::Player> inner, const selfplay::MoveLimits& limits)
      : inner_(std::move(inner)), limits_(limits) {}
  std::string name() const override { return inner_->name(); }
  void new_game(const Game& game) override { inner_->new_game(game); }
  selfplay::PlayerMove choose(const Game& game, const selfplay::MoveLimits&) override {
    return inner_->choose(game, limits_);
  }
  std::unique_ptr<selfplay::Player> clone(uint64_t seed_offset) const override {
    return std::make_unique<OwnLimitsPlayer>(inner_->clone(seed_offset), limits_);
  }

 private:
  std::unique_ptr<selfplay::Player> inner_;
  selfplay::MoveLimits limits_;
};

bool is_executable_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// `path` as one word for /bin/sh -c.
std::string shell_quoted(const std::string& path) {
  std::string out = "'";
  for (const char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

MatchScore play_evaluation_match(selfplay::Player& a, selfplay::Player& b, int games, int visits,
                                 const GameSettings& settings, int opening_plies, uint64_t seed) {
  const selfplay::MoveLimits limits{visits};
  return play_evaluation_match(a, b, games, limits, limits, settings, opening_plies, seed);
}

MatchScore play_evaluation_match(selfplay::Player& a, selfplay::Player& b, int games,
                                 const selfplay::MoveLimits& a_limits, const selfplay::MoveLimits& b_limits,
                                 const GameSettings& settings, int opening_plies, uint64_t seed) {
  selfplay::MatchOptions o;
  o.games = games;
  o.a_limits = a_limits;
  o.b_limits = b_limits;
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
  // One game at a time: a batch holds one round's leaves.
  return make_player(checkpoint, config, 1, 1, selfplay::UciEngineOptions(), name);
}

std::unique_ptr<selfplay::Player> fairy_stockfish_player(int depth, std::string* why, const std::string& path) {
  if (depth < 1 || depth > 1000)
    throw std::invalid_argument("fairy_stockfish_player: depth " + std::to_string(depth) + " is not in 1..1000");
  auto unavailable = [&](const std::string& reason) -> std::unique_ptr<selfplay::Player> {
    if (why) *why = "Fairy-Stockfish (" + path + "): " + reason;
    return nullptr;
  };
  if (!is_executable_file(path)) return unavailable("not an executable file");
  selfplay::UciEngineOptions o;
  o.command = shell_quoted(path);
  o.name = "fairy-stockfish-d" + std::to_string(depth);
  auto engine = std::make_unique<selfplay::UciEnginePlayer>(o);
  const std::string failure = engine->ensure_started();
  if (!failure.empty()) return unavailable(failure);
  if (!engine->variant_selected()) return unavailable("the engine offers no UCI_Variant xiangqi");
  selfplay::MoveLimits limits;
  limits.depth = depth;
  return std::make_unique<OwnLimitsPlayer>(std::move(engine), limits);
}

}  // namespace xq::training
