// The self-play generator and game records, with the uniform and test evaluators (no torch).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <set>

#include "core/move_parse.h"
#include "core/movegen.h"
#include "nn/encoding.h"
#include "nn/policy_labels.h"
#include "records/record_io.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"

namespace xq::selfplay {
namespace {

SelfplayOptions small_options() {
  SelfplayOptions o;
  o.threads = 2;
  o.games_per_thread = 3;
  o.full_visits = 12;
  o.fast_visits = 4;
  o.full_fraction = 0.5f;
  o.leaves_per_batch = 4;
  o.game.length_cap = 60;
  o.resign_threshold = -1.0f;
  return o;
}

std::vector<xqzero::GameRecord> play(const SelfplayOptions& o, nn::Evaluator& evaluator, uint64_t games) {
  std::vector<xqzero::GameRecord> out;
  SelfplayRunner runner(o, evaluator, [&](xqzero::GameRecord&& g) { out.push_back(std::move(g)); });
  runner.run(games);
  EXPECT_EQ(runner.stats().games.load(), games);
  return out;
}

// Replays a record: every move legal, every target a distribution over legal moves, and the
// final judged state equal to the recorded one (resignations excepted).
void check_record(const xqzero::GameRecord& rec) {
  Game game(rec.start_fen(), records::record_settings(rec));
  for (const auto& m : rec.moves()) {
    ASSERT_FALSE(game.over()) << "move after the end: " << m.move();
    float sum = 0;
    ASSERT_EQ(m.policy_label_size(), m.policy_weight_size());
    for (int i = 0; i < m.policy_label_size(); ++i) {
      const Move target = nn::move_of(int(m.policy_label(i)), game.side_to_move());
      EXPECT_TRUE(is_legal(game.position(), target)) << move_to_iccs(target);
      sum += m.policy_weight(i);
    }
    EXPECT_NEAR(sum, 1.0f, 1e-3);
    EXPECT_GE(m.visits(), 1u);
    game.play(parse_legal_move(game.position(), m.move()));
  }
  if (rec.termination() == "resignation") {
    // The resigning side is the one to move after the recorded moves: its last search's
    // move was neither played nor recorded.
    EXPECT_FALSE(game.over());
    EXPECT_EQ(rec.result(), to_string(win_for(~game.side_to_move())));
    return;
  }
  EXPECT_EQ(rec.result(), to_string(game.state().result));
  EXPECT_EQ(rec.termination(), to_string(game.state().reason));
}

TEST(Selfplay, GamesAreCompleteAndConsistent) {
  nn::UniformEvaluator uniform;
  const auto games = play(small_options(), uniform, 10);
  ASSERT_EQ(games.size(), 10u);
  int targets = 0, moves = 0;
  for (const auto& g : games) {
    check_record(g);
    EXPECT_EQ(g.network(), "unknown");
    EXPECT_LE(g.moves_size(), 60);
    for (const auto& m : g.moves()) targets += m.training_target();
    moves += g.moves_size();
  }
  EXPECT_GT(targets, 0);
  EXPECT_LT(targets, moves);
}

TEST(Selfplay, KeepsGumbelAtAnyBudget) {
  // search.gumbel_max_visits (PUCT for long searches) is for play: match, analyse and uci
  // take it from the config; self-play's targets stay Gumbel's whatever its visits.
  xqzero::Config config;
  config.mutable_search()->set_algorithm("gumbel");
  config.mutable_search()->set_gumbel_max_visits(100);
  EXPECT_EQ(search_params(config.search()).gumbel_max_visits, 100);
  EXPECT_EQ(selfplay_options(config).search.gumbel_max_visits, 0);
  EXPECT_EQ(selfplay_options(config).search.algorithm, search::RootAlgorithm::GUMBEL);
  EXPECT_EQ(search_params(xqzero::Config().search()).gumbel_max_visits, 256) << "the proto's default";
}

TEST(Selfplay, ChooseMoveDrawsFromTheTarget) {
  search::SearchResult r;
  for (int i = 0; i < 3; ++i) {
    search::RootMove m;
    m.move = Move(make_square(i, 0), make_square(i, 1));
    m.target = i == 0 ? 0.0f : (i == 1 ? 0.25f : 0.75f);
    r.moves.push_back(m);
  }
  r.best = r.moves[0].move;
  std::mt19937_64 rng(7);
  EXPECT_EQ(choose_move(r, 0.0f, rng), r.best) << "temperature 0 plays the search's choice";
  int counts[3] = {0, 0, 0};
  for (int k = 0; k < 4000; ++k) {
    const Move m = choose_move(r, 1.0f, rng);
    for (int i = 0; i < 3; ++i) counts[i] += m == r.moves[size_t(i)].move;
  }
  EXPECT_EQ(counts[0], 0) << "a move without target weight is never drawn";
  EXPECT_NEAR(double(counts[2]) / 4000, 0.75, 0.04);
  r.proven = search::Proven::WIN;
  for (int k = 0; k < 20; ++k) EXPECT_EQ(choose_move(r, 1.0f, rng), r.best) << "a proven win is always played";
}

TEST(Selfplay, SameSeedSameGames) {
  SelfplayOptions o = small_options();
  o.threads = 1;
  o.games_per_thread = 2;
  nn::TestEvaluator a(3), b(3);
  auto x = play(o, a, 4), y = play(o, b, 4);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i].clear_finished_unix_ms();
    y[i].clear_finished_unix_ms();
    EXPECT_EQ(x[i].SerializeAsString(), y[i].SerializeAsString()) << "game " << i;
  }
}

TEST(Selfplay, ResignationAndNoResignGames) {
  SelfplayOptions o = small_options();
  o.resign_threshold = 0.0f;  // resign as soon as a side is behind on two of its moves
  o.resign_consecutive = 2;
  o.no_resign_fraction = 0.0f;
  nn::TestEvaluator evaluator(4);
  int resigned = 0;
  for (const auto& g : play(o, evaluator, 8)) {
    check_record(g);
    resigned += g.termination() == "resignation";
  }
  EXPECT_GT(resigned, 0);

  o.no_resign_fraction = 1.0f;
  std::vector<xqzero::GameRecord> kept;
  SelfplayRunner runner(o, evaluator, [&](xqzero::GameRecord&& g) { kept.push_back(std::move(g)); });
  runner.run(8);
  int would = 0;
  for (const auto& g : kept) {
    EXPECT_NE(g.termination(), "resignation");
    EXPECT_TRUE(g.no_resign());
    would += g.would_resign() >= 0;
  }
  EXPECT_GT(would, 0);
  EXPECT_EQ(runner.stats().would_resign.load(), uint64_t(would));
  EXPECT_LE(runner.stats().false_resign.load(), runner.stats().would_resign.load());
}

TEST(Selfplay, EveryMoveIsATargetWithFullFractionOne) {
  SelfplayOptions o = small_options();
  o.full_fraction = 1.0f;
  nn::UniformEvaluator uniform;
  for (const auto& g : play(o, uniform, 3))
    for (const auto& m : g.moves()) EXPECT_TRUE(m.training_target());
}

// Values by material: the side to move wins when it has more pieces, loses when fewer
// (priors uniform). From a start without Black's chariots, Red's advantage is decisive.
class MaterialEvaluator final : public nn::Evaluator {
 public:
  void evaluate(nn::Span<const nn::EvalRequest> requests, nn::Span<nn::EvalResult> results) override {
    for (size_t i = 0; i < requests.size(); ++i) {
      int balance = 0;
      for (uint8_t code : requests[i].encoding.squares)
        balance += code == 0 ? 0 : code <= nn::kOppCodeBase ? 1 : -1;
      results[i].priors.assign(size_t(requests[i].n_labels), 1.0f / float(requests[i].n_labels));
      results[i].wdl = balance > 0 ? std::array<float, 3>{0.95f, 0.05f, 0.0f}
                       : balance < 0 ? std::array<float, 3>{0.0f, 0.05f, 0.95f}
                                     : std::array<float, 3>{0.3f, 0.4f, 0.3f};
    }
  }
  std::string describe() const override { return "material"; }
};

TEST(Selfplay, DecidedGamesPlayFastMoves) {
  SelfplayOptions o = small_options();
  o.full_fraction = 1.0f;
  o.start_fen = "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
  MaterialEvaluator material;
  // Off: every move is a target, whatever the values say.
  for (const auto& g : play(o, material, 3))
    for (const auto& m : g.moves()) EXPECT_TRUE(m.training_target());
  o.decisive_value = 0.8f;
  o.decisive_plies = 3;
  int fast = 0, full = 0;
  std::vector<xqzero::GameRecord> games;
  SelfplayRunner runner(o, material, [&](xqzero::GameRecord&& g) { games.push_back(std::move(g)); });
  runner.run(4);
  for (const auto& g : games) {
    check_record(g);
    // A move is a target exactly when the root values of the three moves before it did not
    // all give one side 0.8 or more (a root value is the mover's; plies alternate movers).
    int streak = 0, side = 0;
    for (int i = 0; i < g.moves_size(); ++i) {
      const auto& m = g.moves(i);
      EXPECT_EQ(m.training_target(), streak < 3) << "move " << i;
      (m.training_target() ? full : fast) += 1;
      const float red = i % 2 == 0 ? m.root_value() : -m.root_value();
      const int s = red >= 0.8f ? 1 : red <= -0.8f ? -1 : 0;
      streak = s == 0 ? 0 : s == side ? streak + 1 : 1;
      side = s;
    }
  }
  EXPECT_GT(fast, 0);
  EXPECT_GE(full, 4 * 3);  // at least each game's first three moves
  EXPECT_EQ(runner.stats().decided_moves.load(), uint64_t(fast));  // every fast move here

  // A threshold never reached changes nothing: the very games of the rule switched off.
  o.threads = 1;  // one thread: the games come in one order (SameSeedSameGames)
  o.games_per_thread = 2;
  o.decisive_value = 0.0f;
  std::vector<xqzero::GameRecord> off = play(o, material, 4);
  o.decisive_value = 1.0f;  // the root values here stay below 0.95
  std::vector<xqzero::GameRecord> unreached = play(o, material, 4);
  ASSERT_EQ(off.size(), unreached.size());
  for (size_t i = 0; i < off.size(); ++i) {
    off[i].clear_finished_unix_ms();
    unreached[i].clear_finished_unix_ms();
    EXPECT_EQ(off[i].SerializeAsString(), unreached[i].SerializeAsString()) << "game " << i;
  }
}

TEST(Selfplay, RandomOpeningsStartTheRecordsAfterThem) {
  SelfplayOptions o = small_options();
  o.random_opening_plies = 4;
  nn::UniformEvaluator uniform;
  const auto games = play(o, uniform, 24);
  std::set<std::string> starts;
  int from_start = 0;
  for (const auto& g : games) {
    check_record(g);  // the moves replay from the recorded start
    starts.insert(g.start_fen());
    // The random moves are not in the record: its start is the position after them, at most
    // four plies in (the fullmove number counts Black's moves).
    const Position start = Position::from_fen(g.start_fen());
    EXPECT_LE(start.fullmove_number(), 3) << g.start_fen();
    from_start += g.start_fen() == Position().fen();
  }
  // 0..4 plies each: most games start elsewhere, and from many different positions.
  EXPECT_LT(from_start, 16);  // a fifth of them on average
  EXPECT_GE(starts.size(), 12u);
  // Without it every game starts from the start position.
  for (const auto& g : play(small_options(), uniform, 4)) EXPECT_EQ(g.start_fen(), Position().fen());
}

TEST(Selfplay, RampedVisitsGrowWithTheNetsStep) {
  SelfplayOptions o = small_options();
  EXPECT_EQ(ramped_visits(o, 12, 0), 12);  // off by default
  o.visit_ramp_steps = 100;
  o.visit_ramp_start = 0.25f;
  EXPECT_EQ(ramped_visits(o, 12, 0), 3);
  EXPECT_EQ(ramped_visits(o, 12, 50), 8);  // 12 x 0.625 = 7.5, rounded
  EXPECT_EQ(ramped_visits(o, 12, 100), 12);
  EXPECT_EQ(ramped_visits(o, 12, 5000), 12);
  EXPECT_EQ(ramped_visits(o, 12, -1), 12);  // a net of unknown step: the whole budget
  EXPECT_EQ(ramped_visits(o, 2, 0), 1);     // never below one visit
  o.visit_ramp_start = 0.0f;
  EXPECT_EQ(ramped_visits(o, 12, 0), 1);
}

// The records of a net of step 0 show the ramp's smaller budget; a net of unknown step plays
// the whole one.
TEST(Selfplay, AYoungNetSearchesTheRampedBudget) {
  SelfplayOptions o = small_options();
  o.tree_reuse = false;  // recorded root visits are then this search's own
  o.visit_ramp_steps = 1000;
  o.visit_ramp_start = 0.25f;  // 12 and 4 visits become 3 and 1
  auto uniform = std::make_shared<nn::UniformEvaluator>();
  const auto max_visits = [&](int64_t step) {
    std::vector<xqzero::GameRecord> games;
    SelfplayRunner runner(
        o, [&](int) { return GameEvaluator{uniform, "net", step}; },
        [&](xqzero::GameRecord&& g) { games.push_back(std::move(g)); });
    runner.run(4);
    uint32_t most = 0;
    for (const auto& g : games) {
      check_record(g);
      for (const auto& m : g.moves()) most = std::max(most, m.visits());
    }
    return most;
  };
  const uint32_t young = max_visits(0), unknown = max_visits(-1);
  EXPECT_GE(young, 3u);
  EXPECT_LE(young, 4u);  // the budget, and the root's own evaluation
  EXPECT_GE(unknown, 12u);
}

// An evaluator source told the asking thread spreads threads over devices: with two
// evaluators standing in for two devices and two threads, thread t plays on evaluator t.
TEST(Selfplay, ThreadsSpreadOverDevices) {
  SelfplayOptions o = small_options();
  o.threads = 2;
  auto a = std::make_shared<nn::TestEvaluator>(5), b = std::make_shared<nn::TestEvaluator>(5);
  DeviceNets nets{{GameEvaluator{a, "net"}, GameEvaluator{b, "net"}}};
  std::mutex mutex;
  std::set<int> threads_seen;
  std::vector<xqzero::GameRecord> games;
  SelfplayRunner runner(
      o,
      [&](int thread) {
        std::lock_guard<std::mutex> lock(mutex);
        threads_seen.insert(thread);
        return nets.for_thread(thread);
      },
      [&](xqzero::GameRecord&& g) { games.push_back(std::move(g)); });
  runner.run(8);
  EXPECT_EQ(games.size(), 8u);
  EXPECT_EQ(threads_seen, (std::set<int>{0, 1}));
  EXPECT_GT(a->positions(), 0u);
  EXPECT_GT(b->positions(), 0u);
  EXPECT_EQ(a->positions() + b->positions(), runner.stats().evaluations.load());
}

}  // namespace
}  // namespace xq::selfplay
