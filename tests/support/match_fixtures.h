// Shared pieces of the match and player tests.
#pragma once

#include <gtest/gtest.h>

#include "core/game.h"
#include "core/movegen.h"
#include "selfplay/match.h"

namespace xq::selfplay::fixtures {

// Replays a game and checks every move is legal and the recorded verdict is the core's.
inline void expect_consistent(const GameOutcome& g, const GameSettings& settings) {
  Game game(Position::from_fen(g.start_fen), settings);
  ASSERT_EQ(g.wxf.size(), g.moves.size());
  for (const Move m : g.moves) {
    ASSERT_FALSE(game.over());
    ASSERT_TRUE(MoveList(game.position()).contains(m)) << move_to_iccs(m);
    game.play(m);
  }
  if (g.termination == "forfeit") {
    EXPECT_FALSE(game.over());
    EXPECT_FALSE(g.reason.empty());
  } else {
    ASSERT_TRUE(game.over());
    EXPECT_EQ(game.state().result, g.result);
    EXPECT_EQ(to_string(game.state().reason), g.termination);
  }
}

}  // namespace xq::selfplay::fixtures
