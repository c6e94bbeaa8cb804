// libFuzzer target for the parsers: FEN, ICCS, WXF and Chinese notation, and the Game that
// plays what they read. Input: a FEN on the first line (an empty line means the start
// position), then move tokens separated by white space, in any of the three notations.
//
// Checks, beyond "no crash, no sanitizer report":
//   - a parsed FEN writes back to a FEN that parses to the same position;
//   - bad input fails only with FenError / MoveError, never another exception;
//   - every legal move of a given FEN's position and of the last position reached converts
//     ICCS -> WXF -> ICCS and ICCS -> Chinese -> ICCS unchanged, and so does each move played
//     in the position it was played from (every move of every position reached cost 49 move
//     lists an input and held the target to about 480 inputs/s; the fuzzer reaches as many
//     positions by ending its inputs there);
//   - the game's judged state is the same after undo and replay of the last move.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "core/game.h"
#include "core/move_parse.h"
#include "core/movegen.h"
#include "core/notation_chinese.h"
#include "core/notation_wxf.h"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_parse: %s\n", what.c_str());
  std::abort();
}

void check_move_notations(const xq::Position& pos, xq::Move m) {
  const std::string w = xq::move_to_wxf(pos, m), c = xq::move_to_chinese(pos, m);
  if (xq::parse_wxf(pos, w) != m) fail("WXF round trip " + pos.fen() + " " + xq::move_to_iccs(m) + " " + w);
  if (xq::parse_chinese(pos, c) != m) fail("Chinese round trip " + pos.fen() + " " + xq::move_to_iccs(m) + " " + c);
}

void check_notations(const xq::Position& pos) {
  for (xq::Move m : xq::MoveList(pos)) check_move_notations(pos, m);
}

xq::Move parse_token(const xq::Position& pos, const std::string& t, bool& ok) {
  ok = true;
  try {
    return xq::parse_legal_move(pos, t);
  } catch (const xq::MoveError&) {
  }
  try {
    return xq::parse_wxf(pos, t);
  } catch (const xq::MoveError&) {
  }
  try {
    return xq::parse_chinese(pos, t);
  } catch (const xq::MoveError&) {
  }
  ok = false;
  return xq::Move();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string fen = input.substr(0, nl);
  const std::string rest = nl == std::string::npos ? "" : input.substr(nl + 1);

  xq::Position start;
  if (!fen.empty()) {
    try {
      start = xq::Position::from_fen(fen);
    } catch (const xq::FenError&) {
      return 0;
    }
    const std::string written = start.fen();
    xq::Position again;
    try {
      again = xq::Position::from_fen(written);
    } catch (const xq::FenError& e) {
      fail("FEN written does not parse: " + written + ": " + e.what());
    }
    if (again.fen() != written || again.key() != start.key()) fail("FEN round trip " + written);
  }

  xq::GameSettings settings;
  settings.repetitions = 1 + int(size % 3);
  settings.length_cap = int(size % 7) * 20;
  xq::Game game(start, settings);
  if (!fen.empty()) check_notations(game.position());  // the initial position's: tests/core
  std::istringstream tokens(rest);
  int played = 0;
  for (std::string t; played < 48 && tokens >> t;) {
    bool ok = false;
    const xq::Move m = parse_token(game.position(), t, ok);
    if (!ok) continue;
    if (!xq::is_legal(game.position(), m)) fail("a parser returned an illegal move for '" + t + "'");
    check_move_notations(game.position(), m);
    game.play(m);
    ++played;
    const xq::GameState s = game.state();
    game.undo();
    game.play(m);
    if (game.state() != s) fail("judged state changed on undo and replay after '" + t + "'");
  }
  if (played > 0) check_notations(game.position());
  while (game.ply() > 0) game.undo();
  if (game.position().key() != start.key()) fail("undo did not restore the start position");
  return 0;
}
