// The opponent's reply policy head (network.reply_policy_head): each sample's target is the
// move played next, labelled in the opponent's view; the head's map is read upside down so
// that the logit of a reply comes from the features at its from-square on the board the net
// sees; the trainer learns it and averages it over the samples a move followed.
#include <gtest/gtest.h>
#include "tests/support/tiny_net.h"
#include "tests/support/training_data.h"

#include "core/game.h"
#include "core/move_parse.h"
#include "nn/encoding.h"
#include "nn/network.h"
#include "nn/policy_labels.h"
#include "records/record_io.h"
#include "training/trainer.h"

namespace xq::training {
namespace {

using test::cpu_training;
using test::some_games;

TEST(TrainingPosition, ReplyIsTheMovePlayedNextInTheOpponentsView) {
  for (const bool fast_value_targets : {true, false}) {
    const xqzero::GameRecord g = some_games(1, 0.5f)[0];
    ASSERT_GE(g.moves_size(), 10);
    const std::vector<TrainingPosition> positions = positions_of(g, fast_value_targets);
    Game game(g.start_fen(), records::record_settings(g));
    size_t next = 0;  // the sample of the ply being replayed
    int checked = 0;
    for (int t = 0; t < g.moves_size(); ++t) {
      const bool sample = is_training_sample(g.moves(t), fast_value_targets);
      game.play(parse_legal_move(game.position(), g.moves(t).move()));
      if (!sample) continue;
      ASSERT_LT(next, positions.size());
      const TrainingPosition& p = positions[next++];
      if (t + 1 == g.moves_size()) {
        EXPECT_EQ(p.reply_label, kNoReply) << "no move followed the last one";
        continue;
      }
      // Decoded as the opponent's move, the label is the move the record plays next.
      ASSERT_NE(p.reply_label, kNoReply) << "ply " << t;
      const Move reply = nn::move_of(p.reply_label, game.side_to_move());
      EXPECT_EQ(reply, parse_legal_move(game.position(), g.moves(t + 1).move())) << "ply " << t;
      // Mirrored left-right, it is the mirror image of that move.
      const Move mirror = nn::move_of(mirrored(p).reply_label, game.side_to_move());
      EXPECT_EQ(mirror, Move(nn::mirror_square(reply.from()), nn::mirror_square(reply.to()))) << "ply " << t;
      ++checked;
    }
    EXPECT_EQ(next, positions.size());
    EXPECT_GE(checked, 3) << "fast_value_targets " << fast_value_targets;
  }
}

// A net whose reply head copies the feature map through: the policy head's 3x3 convolution
// keeps only its centre tap (identity), its BatchNorm is at its defaults, and the reply
// convolution sums the channels. A feature lit at one square then lights exactly the reply
// labels the head reads there.
nn::Network pass_through_net() {
  xqzero::NetworkConfig c = ::xq::test::tiny_net_config();
  c.set_reply_policy_head(true);
  nn::Network net = nn::make_network(c, 11);
  net->eval();
  torch::NoGradGuard no_grad;
  auto params = net->named_parameters(true);
  torch::Tensor conv = params["policy_conv.weight"];
  conv.zero_();
  for (int64_t i = 0; i < conv.size(0); ++i) conv[i][i][1][1] = 1.0f;
  params["reply_policy_out.weight"].fill_(1.0f);
  params["reply_policy_out.bias"].zero_();
  return net;
}

TEST(Network, ReplyPolicyIsReadAtTheMovesSquareOnTheBoardTheNetSees) {
  nn::Network net = pass_through_net();
  torch::NoGradGuard no_grad;
  const int channels = net->config().channels();
  // A Black knight move from b10 (real square b10 = file 1, rank 9), and a Red one from h1.
  for (const Color us : {RED, BLACK}) {
    const Color them = ~us;
    const Square from = them == BLACK ? make_square(1, 9) : make_square(7, 0);
    const Square to = them == BLACK ? make_square(2, 7) : make_square(6, 2);
    const Square seen = nn::view_square(us, from);  // where the net sees the piece
    torch::Tensor features = torch::zeros({1, channels, RANK_NB, FILE_NB});
    features.select(2, rank_of(seen)).select(2, file_of(seen)).fill_(1.0f);
    const nn::NetworkImpl::Heads h = net->heads(features, true);
    ASSERT_TRUE(h.reply_policy.defined());
    const torch::Tensor logits = nn::label_logits(h.reply_policy)[0];
    const int label = nn::label_of(Move(from, to), them);
    ASSERT_NE(label, nn::kNoLabel);
    EXPECT_GT(logits[label].item<float>(), 0.5f) << "us " << int(us);
    // Every lit label is a move of the opponent's from that square, and no other.
    const Square from_their_view = nn::view_square(them, from);
    for (int l = 0; l < nn::kNumLabels; ++l)
      EXPECT_EQ(logits[l].item<float>() > 0.5f, nn::label_from(l) == from_their_view) << "label " << l;
    EXPECT_FALSE(net->heads(features, false).reply_policy.defined()) << "search never computes it";
  }
}

TEST(Trainer, ReplyPolicyHeadLearnsOnAFixedBatch) {
  std::vector<TrainingPosition> batch = test::some_batch(6, 64, 0.5f, true);
  ASSERT_GE(batch.size(), 32u);
  xqzero::NetworkConfig net = ::xq::test::tiny_net_config();
  net.set_reply_policy_head(true);
  const auto [first, last] = test::train_on(net, batch);
  EXPECT_GT(first.reply_policy, 0.0);
  EXPECT_LT(last.reply_policy, 0.5 * first.reply_policy);
  Trainer trainer(net, cpu_training());
  // The loss is a mean over the samples a move followed: split into two halves by which rows
  // keep their reply, the whole batch's loss is the halves' losses weighed by their rows (a
  // mean over every row would make it their sum); a batch of only replyless rows reports none.
  std::vector<TrainingPosition> even = batch, odd = batch, ends = batch;
  double n_even = 0, n_odd = 0, n_all = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    (i % 2 ? even : odd)[i].reply_label = kNoReply;
    ends[i].reply_label = kNoReply;
    if (batch[i].reply_label == kNoReply) continue;
    ++n_all;
    ++(i % 2 ? n_odd : n_even);
  }
  ASSERT_GT(n_even, 4.0);
  ASSERT_GT(n_odd, 4.0);
  const double whole = trainer.measure(batch).reply_policy;
  const double halves = (n_even * trainer.measure(even).reply_policy + n_odd * trainer.measure(odd).reply_policy) / n_all;
  EXPECT_NEAR(whole, halves, 1e-4 * whole);
  EXPECT_EQ(trainer.measure(ends).reply_policy, 0.0);
  // Without the head, no reply loss is reported.
  Trainer plain(::xq::test::tiny_net_config(), cpu_training());
  EXPECT_EQ(plain.step(batch).reply_policy, 0.0);
}

}  // namespace
}  // namespace xq::training
