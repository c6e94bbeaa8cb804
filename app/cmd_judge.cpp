// xqzero judge [--fen F] [--moves "m1 m2 ..."] [--repetitions K] [--length-cap N]
//              [--natural-limit N] [--list]
#include <ostream>
#include <sstream>

#include "app/args.h"
#include "app/commands.h"
#include "core/errors.h"
#include "core/game.h"
#include "core/move_parse.h"
#include "core/notation_chinese.h"
#include "core/notation_wxf.h"

namespace xq::app {

namespace {

bool looks_like_iccs(const std::string& t) {
  auto file = [](char c) { return (c >= 'a' && c <= 'i') || (c >= 'A' && c <= 'I'); };
  auto rank = [](char c) { return c >= '0' && c <= '9'; };
  return t.size() == 4 && file(t[0]) && rank(t[1]) && file(t[2]) && rank(t[3]);
}

bool is_ascii(const std::string& t) {
  for (char c : t)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// A move in ICCS, WXF or Chinese notation, told apart by its form.
Move parse_any(const Position& pos, const std::string& text) {
  if (looks_like_iccs(text)) return parse_legal_move(pos, text);
  if (is_ascii(text)) return parse_wxf(pos, text);
  return parse_chinese(pos, text);
}

}  // namespace

int cmd_judge(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"fen", "moves", "repetitions", "length-cap", "natural-limit"}, {"list"});
  if (args.help()) {
    out << "usage: xqzero judge [--fen F] [--moves \"m1 m2 ...\"] [--repetitions K] [--length-cap N]\n"
           "                    [--natural-limit N] [--list]\n"
           "Plays the moves from the start position (or F) and judges the game as the rules do:\n"
           "checkmate, stalemate, perpetual check, perpetual chase, repetition draw, natural limit,\n"
           "dead draw, length cap.\n"
           "  --fen F            start position (default: the standard start)\n"
           "  --moves \"...\"      moves separated by spaces, each in ICCS (h2e2), WXF (C2.5) or\n"
           "                     Chinese notation (炮二平五)\n"
           "  --repetitions K    judge a repetition when the position occurred K times before,\n"
           "                     1..100 (default 1: at the first recurrence; 2: three-fold)\n"
           "  --length-cap N     draw by length cap after N plies, 0 = none (default 0)\n"
           "  --natural-limit N  draw after N plies without a capture, 0 = off (default 120)\n"
           "  --list             print each move as 'N. iccs wxf chinese' first\n"
           "An illegal move, or a move after the game has ended, is an error naming its number.\n"
           "Last line: 'result: 1-0|0-1|1/2-1/2|* reason: <termination reason>'.\n";
    return 0;
  }
  if (!args.positional().empty()) throw UsageError("unexpected argument '" + args.positional()[0] + "'");
  GameSettings settings;
  settings.repetitions = int(args.get_int("repetitions", 1, 1, 100));
  settings.length_cap = int(args.get_int("length-cap", 0, 0, 100000));
  settings.natural_limit = int(args.get_int("natural-limit", 120, 0, 100000));
  Game game(args.has("fen") ? Position::from_fen(args.get("fen")) : Position(), settings);

  std::istringstream moves(args.get("moves"));
  int number = 0;
  for (std::string text; moves >> text;) {
    ++number;
    const std::string where = "move " + std::to_string(number) + " '" + clipped(text) + "'";
    if (game.over()) throw MoveError(where + ": the game is already over (" + game.state().to_string() + ")");
    Move m;
    try {
      m = parse_any(game.position(), text);
    } catch (const MoveError& e) {
      throw MoveError(where + ": " + e.what());
    }
    if (args.has("list"))
      out << number << ". " << move_to_iccs(m) << " " << move_to_wxf(game.position(), m) << " "
          << move_to_chinese(game.position(), m) << "\n";
    game.play(m);
  }
  out << "fen: " << game.position().fen() << "\n";
  out << "plies: " << game.ply() << "\n";
  out << game.state().to_string() << "\n";
  return 0;
}

}  // namespace xq::app
