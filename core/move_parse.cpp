#include "core/move_parse.h"

#include <cstdlib>

#include "core/errors.h"
#include "core/movegen.h"
#include "core/tables.h"

namespace xq {

Move parse_iccs(const std::string& text) {
  auto bad = [&](const std::string& why) -> MoveError {
    return MoveError("malformed move '" + clipped(text) + "': " + why);
  };
  if (text.size() != 4) throw bad("expected 4 characters in ICCS form such as h2e2");
  int coords[4];
  for (int i = 0; i < 4; ++i) {
    const char c = text[i];
    if (i % 2 == 0) {
      const char l = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
      if (l < 'a' || l > 'i') throw bad(std::string("file '") + c + "' is not a..i");
      coords[i] = l - 'a';
    } else {
      if (c < '0' || c > '9') throw bad(std::string("rank '") + c + "' is not 0..9");
      coords[i] = c - '0';
    }
  }
  const Square from = make_square(coords[0], coords[1]), to = make_square(coords[2], coords[3]);
  if (from == to) throw bad("from and to squares are the same");
  return Move(from, to);
}

namespace {

// Why a piece cannot go from `from` to `to` by its movement rule ("" when it can).
std::string geometry_reason(const Position& pos, Square from, Square to) {
  const Piece p = pos.piece_on(from);
  const Color c = color_of(p);
  const Tables& T = tables();
  const std::string name = std::string(piece_type_name(type_of(p))) + " on " + square_name(from);
  const std::string cannot = "a " + name + " cannot move to " + square_name(to);
  switch (type_of(p)) {
    case KING:
      for (uint8_t t : T.king_steps[from])
        if (t == to) return "";
      return cannot + " (one orthogonal step inside the palace)";
    case ADVISOR:
      for (uint8_t t : T.advisor_steps[from])
        if (t == to) return "";
      return cannot + " (one diagonal step inside the palace)";
    case ELEPHANT:
      for (const BlockedStep& st : T.elephant_steps[from])
        if (st.to == to)
          return pos.empty(st.block) ? "" : "the elephant's eye on " + square_name(st.block) + " is blocked";
      return cannot + " (two diagonal steps, never across the river)";
    case HORSE:
      for (const BlockedStep& st : T.horse_steps[from])
        if (st.to == to)
          return pos.empty(st.block) ? "" : "the horse's leg on " + square_name(st.block) + " is blocked";
      return cannot + " (one orthogonal then one diagonal step)";
    case PAWN:
      for (uint8_t t : T.pawn_steps[c][from])
        if (t == to) return "";
      return cannot + (own_half(c, from) ? " (one step forward before crossing the river)"
                                         : " (one step forward or sideways, never back)");
    case CHARIOT:
    case CANNON: {
      if (file_of(from) != file_of(to) && rank_of(from) != rank_of(to)) return cannot + " (not on one line)";
      const int df = (file_of(to) > file_of(from)) - (file_of(to) < file_of(from));
      const int dr = (rank_of(to) > rank_of(from)) - (rank_of(to) < rank_of(from));
      int between = 0;
      for (Square s = from + df + 9 * dr; s != to; s += df + 9 * dr) between += !pos.empty(s);
      const bool capture = !pos.empty(to);
      if (type_of(p) == CHARIOT) return between == 0 ? "" : cannot + " (the way is blocked)";
      if (!capture) return between == 0 ? "" : cannot + " (the way is blocked; a cannon jumps only to capture)";
      if (between == 1) return "";
      return cannot + (between == 0 ? " (a cannon captures only over exactly one screen)"
                                    : " (more than one piece between; a cannon jumps exactly one)");
    }
    default: return cannot;
  }
}

}  // namespace

std::string illegal_reason(const Position& pos, Move m) {
  const Square from = m.from(), to = m.to();
  if (from >= SQUARE_NB || to >= SQUARE_NB || from == to) return "not a move between two squares";
  const Piece p = pos.piece_on(from);
  const Color us = pos.side_to_move();
  if (p == NO_PIECE) return "no piece on " + square_name(from);
  if (color_of(p) != us)
    return "the piece on " + square_name(from) + " is " + color_name(color_of(p)) + "'s, but " + color_name(us) +
           " is to move";
  if (!pos.empty(to) && color_of(pos.piece_on(to)) == us)
    return "it captures its own " + std::string(piece_type_name(type_of(pos.piece_on(to)))) + " on " + square_name(to);
  const std::string geometry = geometry_reason(pos, from, to);
  if (!geometry.empty()) return geometry;
  if (pos.leaves_king_attacked(m)) {
    // Distinguish the flying-general rule from an ordinary check.
    Position after = pos;
    UndoInfo undo;
    after.do_move(m, undo);
    const Square rk = after.king_square(RED), bk = after.king_square(BLACK);
    bool facing = file_of(rk) == file_of(bk);
    for (Square s = rk + 9; facing && s < bk; s += 9) facing = after.empty(s);
    if (facing) return "the kings would face each other on an open file";
    return std::string("it leaves the ") + color_name(us) + " king in check";
  }
  return "";
}

Move parse_legal_move(const Position& pos, const std::string& text) {
  const Move m = parse_iccs(text);
  const std::string why = illegal_reason(pos, m);
  if (!why.empty()) throw MoveError("illegal move '" + clipped(text) + "': " + why);
  return m;
}

}  // namespace xq
