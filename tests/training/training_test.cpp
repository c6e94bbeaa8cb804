// Training data, the replay window and the trainer.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/move_parse.h"
#include "core/movegen.h"
#include "nn/policy_labels.h"
#include "records/record_io.h"
#include "records/record_scanner.h"
#include "selfplay/selfplay.h"
#include "training/replay_window.h"
#include "training/trainer.h"

namespace fs = std::filesystem;

namespace xq::training {
namespace {

using test::cpu_training;
using test::some_games;

using records::RecordScanner;

// What the training loop does with a scan: the usable games of each new file, with their
// positions (for_each_usable_game).
void scan_usable(RecordScanner& scanner, const RecordScanner::Warn& warn, const UsePositions& use,
                 const RecordScanner::Accept& accept = RecordScanner::Accept()) {
  scanner.scan_new(
      warn,
      [&](const std::string& path, std::vector<xqzero::GameRecord>&& games) {
        for_each_usable_game(path, games, warn, use);
      },
      accept);
}

// The usable games of the files the scanner has not read yet.
std::vector<xqzero::GameRecord> read_new(RecordScanner& scanner, const RecordScanner::Warn& warn) {
  std::vector<xqzero::GameRecord> games;
  scan_usable(scanner, warn,
              [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&&) { games.push_back(std::move(g)); });
  return games;
}

TEST(TrainingPosition, FromRecordKeepsTargetsOnly) {
  for (const auto& g : some_games(4)) {
    int targets = 0;
    for (const auto& m : g.moves()) targets += m.training_target();
    const auto positions = positions_of(g);
    EXPECT_EQ(int(positions.size()), targets);
    Game game(g.start_fen(), records::record_settings(g));
    size_t k = 0;
    for (const auto& m : g.moves()) {
      if (m.training_target()) {
        const TrainingPosition& p = positions[k++];
        EXPECT_EQ(p.encoding, nn::encode(game.position(), game.repetition_count()));
        const int expected =
            g.result() == "1/2-1/2" ? 0 : ((g.result() == "1-0") == (game.side_to_move() == RED) ? 1 : -1);
        EXPECT_EQ(p.result, expected);
        // Every legal move is an entry (weight 0 where the search gave none), largest first.
        EXPECT_EQ(int(p.n_policy), MoveList(game.position()).size());
        for (int i = 1; i < p.n_policy; ++i) EXPECT_GE(p.weights[i - 1], p.weights[i]);
        for (int i = 0; i < p.n_policy; ++i)
          EXPECT_TRUE(is_legal(game.position(), nn::move_of(p.labels[i], game.side_to_move())));
        EXPECT_GT(p.weights[0], 0);
        Termination ended = Termination::ONGOING;
        ASSERT_TRUE(parse_termination(g.termination(), ended));
        EXPECT_EQ(Termination(p.termination), ended);
      }
      game.play(parse_legal_move(game.position(), m.move()));
    }
  }
}

TEST(TrainingPosition, MirrorIsAnInvolution) {
  const auto positions = positions_of(some_games(1, 1.0f)[0]);
  ASSERT_FALSE(positions.empty());
  for (const auto& p : positions) {
    const TrainingPosition m = mirrored(p), back = mirrored(m);
    EXPECT_EQ(back.encoding, p.encoding);
    for (int i = 0; i < p.n_policy; ++i) EXPECT_EQ(back.labels[i], p.labels[i]);
    EXPECT_EQ(back.reply_label, p.reply_label);
    EXPECT_EQ(m.encoding, nn::mirror(p.encoding));
  }
}

TEST(ReplayWindow, GrowsWithDataWithinBounds) {
  ReplayWindow w(10, 100, 0.5);
  std::vector<TrainingPosition> batch(7);
  for (size_t i = 0; i < batch.size(); ++i) batch[i].result = int8_t(i % 3 - 1);
  EXPECT_EQ(w.window_size(), 0);
  w.add(batch);
  EXPECT_EQ(w.window_size(), 7);              // fewer than window_min stored: all of them
  for (int i = 0; i < 40; ++i) w.add(batch);  // 287 positions
  EXPECT_EQ(w.total_added(), 287);
  EXPECT_EQ(w.window_size(), 100);  // 0.5 * 287 clamped to window_max
  ReplayWindow v(10, 1000, 0.5);
  for (int i = 0; i < 10; ++i) v.add(batch);  // 70 positions
  EXPECT_EQ(v.window_size(), 35);
}

TEST(ReplayWindow, SamplesOnlyTheNewestAndMirrorsHalf) {
  ReplayWindow w(1, 50, 0.1);  // 10% of 500 = the newest 50
  std::vector<TrainingPosition> batch(1);
  for (int i = 0; i < 500; ++i) {
    batch[0] = TrainingPosition{};
    batch[0].n_policy = 1;
    batch[0].labels[0] = uint16_t(nn::label_of(Move(make_square(0, 3), make_square(0, 4)), RED));  // a3a4
    batch[0].root_value = uint16_t(i);  // marks the insertion order
    w.add(batch);
  }
  std::mt19937_64 rng(1);
  std::vector<TrainingPosition> out;
  ASSERT_TRUE(w.sample(2000, rng, out));
  int mirrored_count = 0;
  const uint16_t plain = batch[0].labels[0];
  for (const auto& p : out) {
    EXPECT_GE(p.root_value, 450);
    mirrored_count += p.labels[0] != plain;
  }
  EXPECT_GT(mirrored_count, 850);
  EXPECT_LT(mirrored_count, 1150);
}

TEST(RecordScanner, SkipsCorruptFilesWithAWarning) {
  const fs::path dir = fs::temp_directory_path() / ("xqzero_scan_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto games = some_games(3);
  records::write_record_file((dir / "a.rec.gz").string(), games);
  std::ofstream(dir / "b.rec.gz") << "garbage";
  RecordScanner scanner(dir.string());
  std::vector<std::string> warnings;
  const auto read = read_new(scanner, [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_EQ(read.size(), games.size());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("b.rec.gz"), std::string::npos);
  EXPECT_TRUE(read_new(scanner, [&](const std::string& w) { warnings.push_back(w); }).empty());
  records::write_record_file((dir / "c.rec.gz").string(), games);
  EXPECT_EQ(read_new(scanner, [](const std::string&) {}).size(), games.size());
  fs::remove_all(dir);
}

// Files from other writers (self-play workers) are found whatever their names sort like,
// and `accept` passes over a writer's own files for good.
TEST(RecordScanner, FindsOtherWritersFilesAndSkipsOwnOnes) {
  const fs::path dir = fs::temp_directory_path() / ("xqzero_scan_workers_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto games = some_games(2);
  RecordScanner scanner(dir.string());
  auto scan = [&] {
    std::vector<xqzero::GameRecord> read;
    scan_usable(
        scanner, [](const std::string&) {},
        [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&&) { read.push_back(std::move(g)); },
        [](const std::string& name) { return name.rfind("selfplay-", 0) != 0; });
    return read.size();
  };
  records::write_record_file((dir / "worker-b-000001.rec.gz").string(), games);
  records::write_record_file((dir / "selfplay-000001.rec.gz").string(), games);
  EXPECT_EQ(scan(), games.size());
  // A file whose name sorts before those already read (a worker with another name) is found.
  records::write_record_file((dir / "worker-a-000001.rec.gz").string(), games);
  records::write_record_file((dir / "selfplay-000002.rec.gz").string(), games);
  EXPECT_EQ(scan(), games.size());
  EXPECT_EQ(scan(), 0u);
  fs::remove_all(dir);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A file of concatenated record files (what `cat` and appending writers make) gives all
// their games.
TEST(RecordScanner, ReadsEveryGzipMember) {
  const fs::path dir = fs::temp_directory_path() / ("xqzero_scan_cat_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "games");
  const auto games = some_games(4);
  records::write_record_file((dir / "a").string(), std::vector<xqzero::GameRecord>(games.begin(), games.begin() + 1));
  records::write_record_file((dir / "b").string(), std::vector<xqzero::GameRecord>(games.begin() + 1, games.end()));
  std::ofstream(dir / "games" / "ab.rec.gz", std::ios::binary) << slurp(dir / "a") << slurp(dir / "b");
  RecordScanner scanner((dir / "games").string());
  std::vector<std::string> warnings;
  const auto read = read_new(scanner, [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_EQ(read.size(), games.size());
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  fs::remove_all(dir);
}

// A file of many records that training cannot use gives one warning naming the file, not
// one per record: a 129-byte file of 100,000 empty records, and a file whose games lack a
// result (its usable games are still read).
TEST(RecordScanner, OneWarningPerFileOfBadRecords) {
  const fs::path dir = fs::temp_directory_path() / ("xqzero_scan_bad_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  gzFile f = gzopen((dir / "empty.rec.gz").c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string zeros(100000, '\0');
  ASSERT_EQ(gzwrite(f, zeros.data(), unsigned(zeros.size())), int(zeros.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
  auto games = some_games(6);
  for (size_t i = 3; i < games.size(); ++i) games[i].clear_result();
  records::write_record_file((dir / "mixed.rec.gz").string(), games);

  RecordScanner scanner(dir.string());
  std::vector<std::string> warnings;
  const auto read = read_new(scanner, [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_EQ(read.size(), 3u);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("empty.rec.gz"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("game record 1 is empty"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("mixed.rec.gz"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[1].find("skipping 3 of 6 games"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[1].find("game 4: game has no final result"), std::string::npos) << warnings[1];
  fs::remove_all(dir);
}

// A scan gives each usable game with its positions, so a caller need not replay it again.
TEST(RecordScanner, ScanNewGivesThePositions) {
  const fs::path dir = fs::temp_directory_path() / ("xqzero_scan_new_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto games = some_games(3, 1.0f);
  records::write_record_file((dir / "a.rec.gz").string(), games);
  RecordScanner scanner(dir.string());
  std::vector<std::string> warnings;
  size_t calls = 0;
  const auto warn = [&](const std::string& w) { warnings.push_back(w); };
  scan_usable(scanner, warn, [&](xqzero::GameRecord&& g, std::vector<TrainingPosition>&& positions) {
    ASSERT_LT(calls, games.size());
    EXPECT_EQ(g.SerializeAsString(), games[calls].SerializeAsString());
    EXPECT_EQ(positions.size(), size_t(g.moves_size()));  // every move a target
    ++calls;
  });
  EXPECT_EQ(calls, games.size());
  EXPECT_TRUE(warnings.empty());
  scan_usable(scanner, warn, [&](xqzero::GameRecord&&, std::vector<TrainingPosition>&&) { ++calls; });
  EXPECT_EQ(calls, games.size());  // each file once
  fs::remove_all(dir);
}

xqzero::NetworkConfig tiny_net() { return ::xq::test::tiny_net_config(); }

// The material target is the mover's material balance kMaterialHorizon plies later (or at
// the end), replayed here independently of positions_of.
TEST(TrainingPosition, MaterialTargetLooksAhead) {
  int nonzero = 0;
  for (const auto& g : some_games(6, 1.0f)) {
    std::vector<int> red_minus_black;
    Game game(g.start_fen(), records::record_settings(g));
    std::vector<Color> movers;
    for (const auto& m : g.moves()) {
      red_minus_black.push_back(material_half_pawns(game.position(), RED) -
                                material_half_pawns(game.position(), BLACK));
      movers.push_back(game.side_to_move());
      game.play(parse_legal_move(game.position(), m.move()));
    }
    red_minus_black.push_back(material_half_pawns(game.position(), RED) - material_half_pawns(game.position(), BLACK));
    const auto positions = positions_of(g);
    ASSERT_EQ(positions.size(), size_t(g.moves_size()));
    for (size_t i = 0; i < positions.size(); ++i) {
      const int later = red_minus_black[std::min(i + size_t(kMaterialHorizon), red_minus_black.size() - 1)];
      EXPECT_EQ(positions[i].material, movers[i] == RED ? later : -later) << "ply " << i;
      nonzero += positions[i].material != 0;
    }
  }
  EXPECT_GT(nonzero, 0) << "the games should contain captures";
  const Position start = Position::from_fen(Position::kStartFen);
  EXPECT_EQ(material_half_pawns(start, RED), 2 * (4 + 4 + 8 + 18 + 9) + 5 * 2);
}

TEST(Trainer, LossFallsOnAFixedBatch) {
  std::vector<TrainingPosition> batch = test::some_batch(6, 64);
  ASSERT_GE(batch.size(), 32u);
  for (const char* precision : {"float32", "bfloat16"}) {
    xqzero::TrainingConfig t = cpu_training();
    t.set_precision(precision);
    xqzero::NetworkConfig net = tiny_net();
    net.set_material_head(true);
    Trainer trainer(net, t);
    const StepLosses first = trainer.step(batch, true);
    StepLosses last;
    for (int i = 0; i < 60; ++i) last = trainer.step(batch);
    // The policy loss cannot fall below the targets' entropy: the KL above it must shrink.
    EXPECT_LT(last.policy - last.policy_entropy, 0.85 * (first.policy - first.policy_entropy)) << precision;
    EXPECT_LT(last.value, first.value) << precision;
    EXPECT_LT(last.material, first.material) << precision;
    EXPECT_GT(first.regularisation, 0.0) << precision;
    EXPECT_EQ(trainer.steps(), 61);
    EXPECT_EQ(trainer.samples_trained(), 61 * int64_t(batch.size()));
  }
}

// With legal_policy_loss the softmax runs over the legal moves only: at initialisation the
// loss is near log(legal moves), not log(all labels); never below the targets' entropy.
TEST(Trainer, PolicyLossOverLegalMoves) {
  std::vector<TrainingPosition> batch = test::some_batch(4, 64);
  xqzero::TrainingConfig t = cpu_training();
  Trainer legal(tiny_net(), t);
  t.set_legal_policy_loss(false);
  Trainer all(tiny_net(), t);
  const StepLosses a = legal.measure(batch), b = all.measure(batch);
  EXPECT_LT(a.policy, std::log(60.0));
  EXPECT_GT(b.policy, std::log(1000.0));
  EXPECT_GE(a.policy, a.policy_entropy - 1e-4);
  EXPECT_NEAR(a.policy_entropy, b.policy_entropy, 1e-9);
  EXPECT_EQ(legal.steps(), 0) << "measure() does not train";
}

// Value targets of length-capped games: "drop" removes them from the value loss, "root"
// replaces the result by the search's root W/D/L.
TEST(Trainer, CappedGamesValueTarget) {
  std::vector<TrainingPosition> batch = test::some_batch(2, 16);
  for (auto& p : batch) {
    p.termination = uint8_t(Termination::LENGTH_CAP);
    p.result = 0;
    p.root_value = 65535;  // certain win for the side to move
    p.root_draw = 0;
  }
  xqzero::TrainingConfig t = cpu_training();
  t.set_capped_value_target("drop");
  EXPECT_EQ(Trainer(tiny_net(), t).measure(batch).value, 0.0);
  t.set_capped_value_target("root");
  const StepLosses root = Trainer(tiny_net(), t).measure(batch);
  EXPECT_NEAR(root.value_entropy, 0.0, 1e-6) << "every target is a certain win";
  t.set_capped_value_target("result");
  EXPECT_NEAR(Trainer(tiny_net(), t).measure(batch).value_entropy, 0.0, 1e-6) << "every target is a draw";
  EXPECT_GT(root.value, 0.0);
}

TEST(Trainer, SchedulesFollowTheConfig) {
  xqzero::TrainingConfig t = cpu_training();
  t.set_learning_rate(0.1f);
  t.set_lr_schedule("step");
  t.set_lr_step_every(10);
  t.set_lr_step_gamma(0.5f);
  Trainer step(tiny_net(), t);
  EXPECT_NEAR(step.learning_rate_at(9), 0.1, 1e-6);
  EXPECT_NEAR(step.learning_rate_at(25), 0.025, 1e-6);
  t.set_lr_schedule("cosine");
  t.set_cosine_steps(100);
  t.set_lr_min(0.01f);
  Trainer cosine(tiny_net(), t);
  EXPECT_NEAR(cosine.learning_rate_at(0), 0.1, 1e-6);
  EXPECT_NEAR(cosine.learning_rate_at(50), 0.055, 1e-6);
  EXPECT_NEAR(cosine.learning_rate_at(100), 0.01, 1e-6);
  EXPECT_NEAR(cosine.learning_rate_at(1000), 0.01, 1e-6);
}

TEST(Trainer, CheckpointResumesExactly) {
  for (const char* optimizer : {"sgd", "adamw"}) {
    std::vector<TrainingPosition> batch = test::some_batch(4, 32);
    xqzero::TrainingConfig t = cpu_training();
    t.set_optimizer(optimizer);
    t.set_learning_rate(0.01f);
    const std::string path =
        (fs::temp_directory_path() / ("xqzero_trainer_" + std::to_string(::getpid()) + ".xqz")).string();
    Trainer a(tiny_net(), t);
    for (int i = 0; i < 5; ++i) a.step(batch);
    std::mt19937_64 rng(42);
    rng();
    a.save(path, "test", rng);
    const StepLosses next_a = a.step(batch);

    Trainer b(tiny_net(), t);
    std::mt19937_64 restored(0);
    b.load(path, restored);
    EXPECT_EQ(b.steps(), 5);
    EXPECT_EQ(b.samples_trained(), 5 * int64_t(batch.size()));
    EXPECT_EQ(restored(), rng()) << "sampler state restored";
    const StepLosses next_b = b.step(batch);
    EXPECT_NEAR(next_b.policy, next_a.policy, 1e-5) << optimizer;
    EXPECT_NEAR(next_b.value, next_a.value, 1e-5) << optimizer;
    fs::remove(path);
  }
}

}  // namespace
}  // namespace xq::training
